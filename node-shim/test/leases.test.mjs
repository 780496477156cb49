// Semantics 7 through the shim: the duration parser, a claim judged at a time, `next` judged
// with heartbeats, and a take that reclaims, against the leases golden file and values
// written out here by hand.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apply, claimState, leaseText, nextWith, parse, parseLease } from '../index.mjs';
import { read } from '../testing/fixtures.mjs';

const golden = read('golden', 'leases', 'queue.json');
const rows = parse(golden).rows;
const t = (hms) => `2026-12-01T${hms}.000Z`;

test('a lease parses in seconds, minutes or hours within 1m to 24h', () => {
  assert.equal(parseLease('90s'), 90);
  assert.equal(parseLease('45m'), 2700);
  assert.equal(parseLease('2h'), 7200);
  assert.equal(parseLease('24h'), 86400);
  for (const bad of ['2 h', '1h30m', '05m', '2d', '', 'h']) {
    assert.throws(() => parseLease(bad), { code: 'lease-form' }, bad);
  }
  for (const bad of ['59s', '25h', '99999999999h']) {
    assert.throws(() => parseLease(bad), { code: 'lease-range' }, bad);
  }
  assert.equal(leaseText(5400), '90m');
  assert.equal(leaseText(7200), '2h');
  assert.throws(() => leaseText(-1), { code: 'bad-argument' });
});

test('a claim is judged live, expired or unknown by its heartbeat and the time', () => {
  const row3 = rows.find((r) => r.id === 3);
  assert.deepEqual(row3.lease, { seconds: 7200, since: 9, seen: t('10:30:00') });
  assert.deepEqual(row3.fenced, [{ seat: 'dewey', rev: 9 }]);
  assert.deepEqual(claimState(row3, { heartbeat: t('11:00:00'), now: t('12:00:00') }), {
    state: 'live',
    leaseEnd: t('13:00:00'),
    lastSign: t('11:00:00'),
    silent: 3600,
    left: 3600,
  });
  assert.equal(claimState(row3, { heartbeat: t('11:00:00'), now: t('13:00:00') }).state, 'expired');
  assert.deepEqual(claimState(row3, { now: new Date(Date.UTC(2026, 11, 1, 13)) }), {
    state: 'unknown',
    leaseEnd: t('12:30:00'),
    lastSign: t('10:30:00'),
    silent: 9000,
    left: -1800,
  });
  assert.equal(claimState(row3, { heartbeat: 'garbage', now: t('13:00:00') }).state, 'unknown');
  assert.equal(claimState(rows.find((r) => r.id === 1), { now: t('13:00:00') }).state, 'unleased');
  const queued = parse(read('golden', 'basic', 'queue.json')).rows.find((r) => r.status === 'queued');
  assert.equal(claimState(queued, { now: t('13:00:00') }), null);
});

test('next judged with heartbeats names an expired claim, and take reclaims it', () => {
  const heartbeats = { webby: t('12:00:00') };
  assert.equal(nextWith(golden, 'scrooge', { heartbeats, now: t('14:30:00') }).id, 3);
  assert.equal(nextWith(golden, 'scrooge', { now: t('14:30:00') }), null);
  const w = apply(golden, { verb: 'take', heartbeats }, { op: 'scrooge-take-0001', by: 'scrooge', at: t('14:30:00') });
  assert.equal(
    w.receipt,
    'ok scrooge-take-0001 rev 15 take 3 reclaimed from webby (last sign of life 2026-12-01T12:00:00.000Z, lease 2h)',
  );
  const after = parse(w.bytes).rows.find((r) => r.id === 3);
  assert.equal(after.owner, 'scrooge');
  assert.deepEqual(after.fenced, [
    { seat: 'dewey', rev: 9 },
    { seat: 'webby', rev: 15 },
  ]);
  assert.throws(
    () => apply(w.bytes, { verb: 'note', id: 3, text: 'late' }, { op: 'webby-note-0001', by: 'webby', at: t('14:31:00') }),
    { code: 'fenced' },
  );
  const none = apply(golden, { verb: 'take', noReclaim: true, heartbeats }, { op: 'scrooge-take-0002', by: 'scrooge', at: t('14:30:00') });
  assert.equal(none.receipt, 'nothing to take');
});
