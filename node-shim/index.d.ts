// Types for @mosaicstack/queue-core (index.mjs). Documents are the queue.json schema
// (docs/format.md); a refusal throws a QueueCoreError whose `code` is the core's kind.

export type Bytes = Uint8Array | string;

export type Status = 'queued' | 'in-progress' | 'in-review' | 'waiting-on-jason' | 'blocked' | 'parked' | 'done';

/** One row of queue.json; review rounds are kept as the file holds them. */
export interface Row {
  id: number;
  piece: string;
  owner: string | null;
  status: Status;
  gate: string | null;
  issues: number[];
  closes: number[];
  closesNarrowed: boolean;
  reviewers: string[];
  brief: string | null;
  note: string | null;
  blockedReason: string | null;
  review: { rounds: Record<string, unknown>[] } | null;
  /** The rows this one waits on; absent when none. */
  after?: number[];
  /** The claim's lease while the row is in progress under one (semantics 7); absent otherwise. */
  lease?: Lease;
  /** Seats fenced off the row by a reclaim (semantics 7); absent when none. */
  fenced?: { seat: string; rev: number }[];
}

export interface Lease {
  /** How long the claim may stay silent, in seconds (60 to 86400). */
  seconds: number;
  /** The revision of the entry that gave the holder the claim. */
  since: number;
  /** The last sign of life the log proves: the latest time of the holder's entries on the row. */
  seen: string;
}

/** A claim judged at a time (`claimState`). */
export interface ClaimState {
  state: 'live' | 'quiet' | 'expired' | 'unknown' | 'unleased';
  leaseEnd: string | null;
  lastSign: string | null;
  /** Whole seconds since the last sign (0 when it stands ahead of now). */
  silent: number | null;
  /** Seconds to the lease's end, negative once it passed. */
  left: number | null;
}

export interface Entry {
  rev: number;
  op: string;
  verb: string;
  by: string;
  at: string;
  semantics: number;
  args: Record<string, unknown>;
  receipt: string;
  body: string;
}

export interface QueueFile {
  version: number;
  canonicalRoot: string;
  revision: number;
  rows: Row[];
  log: Entry[];
}

/** A command as the core's `Command` takes it: `{verb: 'move', id: 2, to: 'in-progress'}`. */
export type Command = { verb: string } & Record<string, unknown>;

export interface MapRow {
  id: number;
  piece: string;
  owner: string | null;
  status: Status;
  gate: string | null;
  issues: number[];
  note: string | null;
}

export interface GenesisArgs {
  branch: string;
  root: string;
  source: string;
  rows: MapRow[];
  legacyView: string;
}

export interface Written {
  /** The new canonical queue.json bytes. */
  bytes: Uint8Array;
  /** The receipt line to print: `ok <op> rev <N> ...`. */
  receipt: string;
  /** The table body for QUEUE.md after this write. */
  body: string;
  revision: number;
  /** True when the op was already in the log: nothing changed. */
  recorded: boolean;
  /**
   * The review request attempt the op opened (a move into review on a row with reviewers, or
   * a review request): post `body` on `issue` as `login`, then log the outcome as op
   * `<attempt>.outcome`. `null` for every other op.
   */
  request: ReviewRequest | null;
}

export interface ReviewRequest {
  id: number;
  issue: number;
  attempt: string;
  login: string;
  body: string;
}

export interface Stamp {
  op: string;
  by: string;
  /** A Date, or UTC ISO-8601 with milliseconds. */
  at: string | Date;
}

export interface QueueCoreError extends Error {
  /** The core's kind: `not-canonical`, `entry-refused`, `not-allowed`, `bad-argument`, ... */
  code: string;
  /** For `entry-refused` (and a snapshot or base refused that way): the verb refusal's kind. */
  refused?: string;
}

export const wasmPath: string;

export function parse(file: Bytes): QueueFile;
export function serialize(doc: QueueFile | string): Uint8Array;
export function verify(file: Bytes): { revision: number; rows: number };
export function replay(file: Bytes): {
  revision: number;
  branch: string | null;
  root: string | null;
  rows: Row[];
  reasons: { id: number; reason: string }[];
};
export function genesis(args: GenesisArgs | string, stamp: Stamp): Written;
export function apply(file: Bytes, command: Command | string, stamp: Stamp & { semantics?: number }): Written;
export function renderBody(file: Bytes): string;
export function bodyStatus(
  file: Bytes,
  body: Bytes,
): { status: 'current' } | { status: 'stale'; rev: number } | { status: 'unknown' };
export function tableBody(md: Bytes): string;
export function splice(md: Bytes, body: Bytes): string;
export function next(file: Bytes, seat: string): Row | null;
export function parseLease(value: string): number;
export function leaseText(seconds: number): string;
export function claimState(row: Row | string, at: { heartbeat?: string | Date | null; now: string | Date }): ClaimState | null;
export function nextWith(
  file: Bytes,
  seat: string,
  at: { heartbeats?: Record<string, string>; now: string | Date },
): Row | null;
export function genesisArgs(map: Bytes, where: { branch: string; root: string; queueMd: Bytes }): GenesisArgs;
export function mapDrift(
  map: Bytes,
  sourceMd: Bytes,
  currentMd: Bytes,
): {
  lines: { added: boolean; line: number; text: string }[];
  rows: { id: number; field: string; map: string; table: string }[];
};
export function verifySnapshot(
  queueJson: Bytes,
  queueMd: Bytes,
  base?: Bytes | null,
  archives?: Bytes[],
): { revision: number; baseRevision: number | null };

/**
 * `verify --full`: the archives 1..K in order and queue.json; each epoch entry is recomputed
 * from its archive, and no op id repeats across the history.
 */
export function verifyFull(archives: Bytes[], file: Bytes): { revision: number; rows: number };
