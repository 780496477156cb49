// fixtures/epochs through the shim: the queue cut twice verifies alone and in full with its
// archives, a snapshot of it extends a base from before both cuts only with them, and every
// hand edit gets exactly the kind the native core gives (core/tests/epoch_fixtures.rs).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { bodyStatus, renderBody, verify, verifyFull, verifySnapshot } from '../index.mjs';
import { queueMd, read, readJson } from '../testing/fixtures.mjs';

const queue = read('epochs', 'queue.json');
const archives = [read('epochs', 'archive', 'epoch-0001.json'), read('epochs', 'archive', 'epoch-0002.json')];
const expected = readJson('epochs', 'expected.json');

/** What a call answers: "ok", or the error's code (with no crash and a one-line message). */
function kind(call) {
  try {
    call();
    return 'ok';
  } catch (err) {
    assert.equal(typeof err.code, 'string', String(err));
    assert.ok(!err.message.includes('\n'), err.message);
    return err.code;
  }
}

test('the cut queue verifies alone and in full, and renders its table', () => {
  assert.deepEqual(verify(queue), { revision: 29, rows: 1 });
  assert.deepEqual(verifyFull(archives, queue), { revision: 29, rows: 1 });
  const body = renderBody(queue);
  assert.equal(body, read('epochs', 'body.md').toString('utf8'));
  assert.deepEqual(bodyStatus(queue, body), { status: 'current' });
  // Each archive is itself a queue file.
  assert.deepEqual(verify(archives[0]), { revision: 11, rows: 4 });
  assert.equal(verify(archives[1]).revision, 28);
});

test('verify --full needs every archive, in order', () => {
  assert.throws(() => verifyFull([archives[0]], queue), (err) => {
    assert.equal(err.code, 'epoch-mismatch');
    assert.equal(err.message, 'epoch 2 does not hold: queue.json names 2 archives but 1 were given');
    return true;
  });
  assert.equal(kind(() => verifyFull([archives[1], archives[0]], queue)), 'epoch-mismatch');
  assert.equal(kind(() => verifyFull('not a list', queue)), 'bad-argument');
});

test('a snapshot extends a base from before the cuts only through its archives', () => {
  const md = queueMd(read('epochs', 'body.md').toString('utf8'));
  const base = read('epochs', 'base.json');
  assert.deepEqual(verifySnapshot(queue, md, base, archives), { revision: 29, baseRevision: 5 });
  assert.deepEqual(verifySnapshot(queue, md, base, [archives[1], archives[0]]), {
    revision: 29,
    baseRevision: 5,
  });
  assert.throws(() => verifySnapshot(queue, md, base), (err) => {
    assert.equal(err.code, 'snapshot-archive');
    assert.equal(
      err.message,
      "the base (rev 5) is older than the snapshot's cut, and docs/plans/archive/epoch-0001.json is not among the snapshot's archives",
    );
    return true;
  });
  assert.deepEqual(verifySnapshot(queue, md, queue), { revision: 29, baseRevision: 29 });
});

for (const [name, want] of Object.entries(expected)) {
  test(`${name}: ${want.why}`, () => {
    const file = read('epochs', 'bad', name);
    const list = want.archives.map((path) => read('epochs', ...path.split('/')));
    const active = name.startsWith('archive-') ? queue : file;
    assert.equal(kind(() => verify(file)), want.verify, 'verify');
    assert.equal(kind(() => verifyFull(list, active)), want.verifyFull, 'verify --full');
  });
}
