// The mosaic-queue core for Node: the Rust core built by wasm-pack (`--target nodejs`) into
// ./pkg, re-exported with JavaScript values. Bytes go in as Uint8Array (or string), structured
// answers come back as plain objects, and a refusal throws an Error whose `code` is the core's kind.

import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const glue = fileURLToPath(new URL('./pkg/mosaic_queue_wasm.js', import.meta.url));

/** The .wasm file the shim runs (its size is a figure the benchmarks print). */
export const wasmPath = fileURLToPath(new URL('./pkg/mosaic_queue_wasm_bg.wasm', import.meta.url));

function load() {
  if (!existsSync(glue)) {
    const err = new Error(
      'node-shim/pkg is not built; at the workspace root run `bash tests/all.sh`, or its ' +
        'two Node-module steps (wasm-pack with --profile wasm-release, then wasm-opt -Oz)',
    );
    err.code = 'wasm-missing';
    throw err;
  }
  // wasm-pack's nodejs target is CommonJS that reads the .wasm file synchronously.
  return createRequire(import.meta.url)(glue);
}

const core = load();
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

function badArgument(message) {
  const err = new TypeError(message);
  err.code = 'bad-argument';
  return err;
}

function bytes(name, value) {
  if (typeof value === 'string') return encoder.encode(value);
  if (value instanceof Uint8Array) return value;
  throw badArgument(`${name} must be a Uint8Array or a string`);
}

function text(name, value) {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return decoder.decode(value);
  throw badArgument(`${name} must be a string`);
}

/** An entry's time: a Date, or the core's `YYYY-MM-DDTHH:MM:SS.mmmZ` text, which it checks. */
function timestamp(at) {
  if (at instanceof Date) return at.toISOString();
  return text('at', at);
}

function json(name, value) {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') throw badArgument(`${name} must be an object or JSON text`);
  return JSON.stringify(value);
}

function written(w) {
  try {
    return {
      bytes: w.bytes,
      receipt: w.receipt,
      body: w.body,
      revision: w.revision,
      recorded: w.recorded,
      request: JSON.parse(w.request),
    };
  } finally {
    w.free();
  }
}

/** Checks that `file` is a canonical queue file (no replay) and returns the document. */
export function parse(file) {
  return JSON.parse(core.parse(bytes('file', file)));
}

/** The canonical bytes of a queue document (object or JSON text); the schema is checked. */
export function serialize(doc) {
  return core.serialize(json('doc', doc));
}

/** Parses, checks canonical bytes and replays the log: `{revision, rows}` (rows is a count). */
export function verify(file) {
  return JSON.parse(core.verify(bytes('file', file)));
}

/** `verify`, returning the replayed state: `{revision, branch, root, rows, reasons}`. */
export function replay(file) {
  return JSON.parse(core.replay(bytes('file', file)));
}

/** A new queue holding its genesis entry; `args` as `genesisArgs` returns them. */
export function genesis(args, { op, by, at }) {
  return written(core.genesis(json('args', args), text('op', op), text('by', by), timestamp(at)));
}

/**
 * Applies `command` (`{verb: 'move', id: 2, to: 'in-progress'}` and so on) to the queue in
 * `file` as `op` by `by` at `at`. A recorded op returns its receipt with `recorded: true`.
 * With `semantics`, the command is appended as a historic entry under those rules.
 */
export function apply(file, command, { op, by, at, semantics } = {}) {
  if (semantics !== undefined && !(Number.isInteger(semantics) && semantics >= 0 && semantics <= 255)) {
    throw badArgument('semantics must be an integer from 0 to 255');
  }
  return written(
    core.apply(
      bytes('file', file),
      json('command', command),
      text('op', op),
      text('by', by),
      timestamp(at),
      semantics,
    ),
  );
}

/** The table body (the text between QUEUE.md's markers) for the queue in `file`. */
export function renderBody(file) {
  return core.renderBody(bytes('file', file));
}

/** `{status: 'current'}`, `{status: 'stale', rev}` or `{status: 'unknown'}` for `body`. */
export function bodyStatus(file, body) {
  return JSON.parse(core.bodyStatus(bytes('file', file), text('body', body)));
}

/** The text between QUEUE.md's two marker lines. */
export function tableBody(md) {
  return core.tableBody(text('md', md));
}

/** QUEUE.md with its body replaced; the hand-written text around it is kept byte for byte. */
export function splice(md, body) {
  return core.splice(text('md', md), text('body', body));
}

/** The row `seat` should take up next, or null. */
export function next(file, seat) {
  return JSON.parse(core.next(bytes('file', file), text('seat', seat)));
}

/** A lease as a person writes it (`90s`, `45m`, `2h`), in seconds; throws `lease-form` or `lease-range`. */
export function parseLease(value) {
  return core.parseLease(text('lease', value));
}

/** A lease in seconds as receipts write it: `2h`, `90m`, `75s`. */
export function leaseText(seconds) {
  if (!(Number.isInteger(seconds) && seconds >= 0 && seconds <= 0xffffffff)) {
    throw badArgument('seconds must be an integer from 0 to 4294967295');
  }
  return core.leaseText(seconds);
}

/**
 * The claim on `row` (a queue.json row) judged at `now` with its holder's heartbeat (a time
 * its heartbeat file holds; absent or null when it could not be read):
 * `{state, leaseEnd, lastSign, silent, left}`, or null when the row is not in progress under a seat.
 */
export function claimState(row, { heartbeat, now }) {
  const beat = heartbeat === undefined || heartbeat === null ? undefined : timestamp(heartbeat);
  return JSON.parse(core.claimState(json('row', row), beat, timestamp(now)));
}

/** `next` judged with `heartbeats` (`{seat: time}`) at `now`: an expired claim is free work at its place. */
export function nextWith(file, seat, { heartbeats = {}, now }) {
  return JSON.parse(core.nextWith(bytes('file', file), text('seat', seat), json('heartbeats', heartbeats), timestamp(now)));
}

/** Genesis arguments from a migration map, the genesis branch and root, and QUEUE.md. */
export function genesisArgs(map, { branch, root, queueMd }) {
  return JSON.parse(
    core.genesisArgs(text('map', map), text('branch', branch), text('root', root), text('queueMd', queueMd)),
  );
}

/** Drift between a migration map and the current QUEUE.md: `{lines, rows}`. */
export function mapDrift(map, sourceMd, currentMd) {
  return JSON.parse(core.mapDrift(text('map', map), text('sourceMd', sourceMd), text('currentMd', currentMd)));
}

/** The archives as one buffer: each one's bytes after their u32 little-endian length. */
function packed(name, archives) {
  if (!Array.isArray(archives)) throw badArgument(`${name} must be an array of Uint8Array or string`);
  const parts = archives.map((a, i) => bytes(`${name}[${i}]`, a));
  const out = new Uint8Array(parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    view.setUint32(at, p.length, true);
    out.set(p, at + 4);
    at += 4 + p.length;
  }
  return out;
}

/**
 * The snapshot verdict `{revision, baseRevision}` for queue.json and QUEUE.md (and a base);
 * `archives` are the snapshot's docs/plans/archive/ files, needed for a base older than its cut.
 */
export function verifySnapshot(queueJson, queueMd, base, archives = []) {
  const baseBytes = base === undefined || base === null ? undefined : bytes('base', base);
  return JSON.parse(
    core.verifySnapshot(
      bytes('queueJson', queueJson),
      bytes('queueMd', queueMd),
      baseBytes,
      packed('archives', archives),
    ),
  );
}

/**
 * `verify --full`: archives 1..K in order (docs/plans/archive/epoch-0001.json first) and
 * queue.json; each epoch entry is recomputed from its archive. `{revision, rows}`.
 */
export function verifyFull(archives, file) {
  return JSON.parse(core.verifyFull(packed('archives', archives), bytes('file', file)));
}
