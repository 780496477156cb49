// Snapshot verification through the shim, as core/tests/snapshot.rs does it natively: a golden
// pair passes, with or without a base it extends; each way to fail has its own kind.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { renderBody, verify, verifySnapshot } from '../index.mjs';
import { queueMd, read, readJson, runScenario } from '../testing/fixtures.mjs';

const json = read('golden', 'basic', 'queue.json');
const table = queueMd(read('golden', 'basic', 'body.md').toString('utf8'));
const other = read('golden', 'genesis-only', 'queue.json');
const otherTable = queueMd(read('golden', 'genesis-only', 'body.md').toString('utf8'));
const basic = readJson('scenarios', 'basic.json');

test('a golden pair passes, and passes against an earlier state of its own history', () => {
  const revision = verify(json).revision;
  assert.ok(revision > 6);
  assert.deepEqual(verifySnapshot(json, table), { revision, baseRevision: null });
  const base = runScenario(basic, 6);
  const baseRevision = verify(base).revision;
  assert.ok(baseRevision < revision);
  assert.deepEqual(verifySnapshot(json, table, base), { revision, baseRevision });
  assert.deepEqual(verifySnapshot(json, table, json), { revision, baseRevision: revision });
});

test('each failure has its kind', () => {
  const kind = (...args) => {
    try {
      verifySnapshot(...args);
    } catch (err) {
      return err.code;
    }
    return 'passed';
  };
  assert.equal(kind(json, queueMd('| edited |\n')), 'table-unknown');
  assert.equal(kind(json, 'no markers\n'), 'table-markers');
  assert.equal(kind(json, Buffer.from([0xff, 0x0a])), 'table-not-utf8');
  assert.equal(kind(json, table, '{}'), 'base-invalid');
  assert.equal(kind(json, table, other), 'snapshot-diverged');
  assert.equal(kind(other, otherTable, json), 'snapshot-behind');
  assert.equal(kind('{', table), 'json-syntax');
  const stale = queueMd(renderBody(runScenario(basic, 6)));
  assert.equal(kind(json, stale), 'table-stale');
});

test('an invalid history names the verb refusal behind it', () => {
  const name = Object.entries(readJson('bad', 'expected.json')).find(([, e]) => e.kind === 'entry-refused');
  assert.ok(name, 'the corpus has an entry-refused file');
  const [file, want] = name;
  assert.throws(() => verifySnapshot(read('bad', file), table), { code: 'entry-refused', refused: want.refused });
  assert.throws(() => verifySnapshot(json, table, read('bad', file)), { code: 'base-invalid', refused: want.refused });
});
