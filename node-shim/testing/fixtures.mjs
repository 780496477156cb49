// Shared by the shim's tests: the fixture folder the Rust tests also read, the scenario runner
// (the Node mirror of core/tests/common), and the native binary the CLI tests compare with.
// Kept outside test/ so `node --test` does not run it as a test file.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { apply, genesis, verify } from '../index.mjs';

export const workspace = fileURLToPath(new URL('../..', import.meta.url));
export const fixtures = join(workspace, 'fixtures');

export function read(...parts) {
  return readFileSync(join(fixtures, ...parts));
}

export function readJson(...parts) {
  return JSON.parse(read(...parts).toString('utf8'));
}

export function scenarioNames() {
  return readdirSync(join(fixtures, 'scenarios'))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
}

export function badCorpus() {
  return readdirSync(join(fixtures, 'bad'))
    .filter((name) => name !== 'generate.mjs' && name !== 'expected.json')
    .sort();
}

/** QUEUE.md around a body, as the Rust snapshot tests build it. */
export function queueMd(body) {
  return `# Queue\n\n<!-- mosaic-queue:begin -->\n${body}<!-- mosaic-queue:end -->\n`;
}

/**
 * Runs a scenario through the shim, checking each step's receipt or refusal kind and that
 * each written file verifies; `steps` limits how many steps run. Returns the final bytes.
 */
export function runScenario(sc, steps = sc.steps.length) {
  const g = sc.genesis;
  const first = genesis(g.args, { op: g.op, by: g.by, at: g.at });
  assert.equal(first.receipt, sc.expectGenesis, `${sc.name}: genesis receipt`);
  let bytes = first.bytes;
  sc.steps.slice(0, steps).forEach((step, i) => {
    const where = `${sc.name} step ${i + 1} (${step.op})`;
    let got;
    try {
      const w = apply(bytes, step.command, {
        op: step.op,
        by: step.by,
        at: step.at,
        semantics: step.semantics ?? undefined,
      });
      if (w.recorded) assert.deepEqual(w.bytes, bytes, `${where}: a retry changed the file`);
      bytes = w.bytes;
      got = { receipt: w.receipt };
    } catch (err) {
      if (typeof err.code !== 'string') throw err;
      got = { refused: err.code };
    }
    assert.deepEqual(got, step.expect, where);
    assert.doesNotThrow(() => verify(bytes), `${where}: the written file does not verify`);
  });
  return bytes;
}

/** The native binary: $MOSAIC_QUEUE_BIN, else the workspace's debug build, else release. */
export function nativeBinary() {
  if (process.env.MOSAIC_QUEUE_BIN) return process.env.MOSAIC_QUEUE_BIN;
  const target = process.env.CARGO_TARGET_DIR || join(workspace, 'target');
  const found = ['debug', 'release']
    .map((profile) => join(target, profile, 'mosaic-queue'))
    .filter((path) => existsSync(path))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  assert.ok(found.length > 0, 'no native mosaic-queue build: run `cargo build -p mosaic-queue` first');
  return found[0];
}
