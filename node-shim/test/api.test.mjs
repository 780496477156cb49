// The rest of the shim's API against the golden queue: writes and retries, refusals as Errors
// with codes, next, body status, the QUEUE.md markers, and genesis from a migration map.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  apply,
  bodyStatus,
  genesis,
  genesisArgs,
  mapDrift,
  next,
  parse,
  renderBody,
  splice,
  tableBody,
  verify,
} from '../index.mjs';
import { queueMd, read, readJson, runScenario } from '../testing/fixtures.mjs';

const golden = read('golden', 'basic', 'queue.json');
const doc = JSON.parse(golden.toString('utf8'));
const at = '2026-12-01T09:00:00.000Z';

test('a write returns new bytes, its receipt and the new body; a retry changes nothing', () => {
  const add = { verb: 'add', piece: 'Shim docs', issues: [1530, 1529, 1530] };
  const w = apply(golden, add, { op: 'lead-add-shim-docs', by: 'lead', at });
  const revision = doc.revision + 1;
  const id = Math.max(...doc.rows.map((r) => r.id)) + 1;
  assert.equal(w.receipt, `ok lead-add-shim-docs rev ${revision} add ${id} queued`);
  assert.equal(w.revision, revision);
  assert.equal(w.recorded, false);
  assert.equal(w.request, null);
  assert.ok(w.bytes instanceof Uint8Array);
  const file = parse(w.bytes);
  assert.deepEqual(file.rows.at(-1).issues, [1529, 1530]);
  assert.equal(file.log.at(-1).at, at);
  assert.equal(w.body, renderBody(w.bytes));
  assert.deepEqual(bodyStatus(w.bytes, w.body), { status: 'current' });

  const again = apply(w.bytes, add, { op: 'lead-add-shim-docs', by: 'lead', at: new Date(0) });
  assert.equal(again.recorded, true);
  assert.equal(again.receipt, w.receipt);
  assert.deepEqual(again.bytes, w.bytes);
  assert.throws(() => apply(w.bytes, { ...add, piece: 'Other' }, { op: 'lead-add-shim-docs', by: 'lead', at }), {
    code: 'op-reused',
  });
});

test('a Date is written as the core timestamp', () => {
  const when = new Date(Date.UTC(2026, 11, 2, 3, 4, 5, 6));
  const w = apply(golden, { verb: 'note', id: 1, text: 'dated' }, { op: 'jason-note-dated', by: 'jason', at: when });
  assert.equal(parse(w.bytes).log.at(-1).at, '2026-12-02T03:04:05.006Z');
});

test('refusals are Errors with the core kind as code', () => {
  const codeOf = (fn) => {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof Error);
      assert.ok(!err.message.includes('\n'));
      return err.code;
    }
    return 'no error';
  };
  const write = (command, stamp) => codeOf(() => apply(golden, command, { at, ...stamp }));
  const release = { verb: 'release', id: 1 };
  const darkwing = { op: 'darkwing-test-1', by: 'darkwing' };
  assert.equal(write({ verb: 'move', id: 999, to: 'in-progress' }, darkwing), 'no-such-row');
  assert.equal(write({ verb: 'move', id: 1, to: 'sideways' }, darkwing), 'bad-argument');
  assert.equal(write({ verb: 'move', id: 1 }, darkwing), 'bad-argument');
  assert.equal(write('{"verb":', darkwing), 'bad-argument');
  assert.equal(write(release, { ...darkwing, op: 'bad op' }), 'invalid-op');
  assert.equal(write(release, { ...darkwing, by: 'Darkwing' }), 'invalid-actor');
  assert.equal(write(release, { ...darkwing, at: 'now' }), 'bad-timestamp');
  assert.equal(write(release, { ...darkwing, at: undefined }), 'bad-argument');
  assert.equal(codeOf(() => verify(Buffer.from('\u{feff}{}\n'))), 'bom');
  assert.equal(codeOf(() => renderBody(Buffer.from('{}\n'))), 'schema');
  assert.equal(codeOf(() => verify(42)), 'bad-argument');
});

test('next: own in-progress, then own queued, then unowned queued, in queue order', () => {
  assert.equal(next(golden, 'flicker').id, 1);
  assert.equal(next(golden, 'filbert').id, 3);
  assert.equal(next(golden, 'darkwing'), null);
  const started = apply(golden, { verb: 'move', id: 3, to: 'in-progress' }, { op: 'filbert-3-start-1', by: 'filbert', at });
  const added = apply(started.bytes, { verb: 'add', piece: 'Unowned' }, { op: 'lead-add-unowned', by: 'lead', at });
  const row = next(added.bytes, 'filbert');
  assert.deepEqual([row.id, row.status], [3, 'in-progress']);
  assert.equal(next(added.bytes, 'darkwing').piece, 'Unowned');
  assert.equal(next(added.bytes, 'flicker').id, 1);
});

test('body status tells current, stale and unknown apart', () => {
  const basic = readJson('scenarios', 'basic.json');
  const early = runScenario(basic, 6);
  const earlyRevision = verify(early).revision;
  assert.deepEqual(bodyStatus(golden, renderBody(early)), { status: 'stale', rev: earlyRevision });
  assert.deepEqual(bodyStatus(golden, '| hand edit |\n'), { status: 'unknown' });
});

test('the body lives between the marker lines and splice keeps the text around it', () => {
  const md = `${queueMd('old\n')}tail\n`;
  assert.equal(tableBody(md), 'old\n');
  assert.equal(splice(md, 'new\n'), `${queueMd('new\n')}tail\n`);
  assert.throws(() => tableBody('no markers\n'), { code: 'table-markers' });
  assert.throws(() => splice('<!-- mosaic-queue:end -->\n<!-- mosaic-queue:begin -->\n', 'x'), {
    code: 'table-markers',
  });
});

const MAP = [
  '# Migration map',
  '',
  'source: docs/plans/QUEUE.md blob 0123456789abcdef0123456789abcdef01234567',
  '',
  '| # | Piece | Owner | Status | Gate | Issues | Note |',
  '|---|---|---|---|---|---|---|',
  '| 1 | Queue as data | darkwing | in-progress | jason | #1508 | |',
  '| 2 | Pipes \\| and more | — | queued | - | #14, #12 | piece D |',
  '',
].join('\n');
const TABLE = MAP.split('\n').slice(4, 8).join('\n') + '\n';

test('genesis from a migration map', () => {
  const args = genesisArgs(MAP, { branch: 'main', root: '/srv/q', queueMd: queueMd(TABLE) });
  assert.equal(args.source, '0123456789abcdef0123456789abcdef01234567');
  assert.equal(args.legacyView, TABLE);
  assert.deepEqual(args.rows.map((r) => [r.id, r.piece, r.owner, r.issues]), [
    [1, 'Queue as data', 'darkwing', [1508]],
    [2, 'Pipes | and more', null, [12, 14]],
  ]);
  const w = genesis(args, { op: 'jason-genesis-1', by: 'jason', at });
  assert.equal(w.receipt, 'ok jason-genesis-1 rev 1 genesis 2 rows on main from blob 0123456789ab');
  assert.deepEqual(verify(w.bytes), { revision: 1, rows: 2 });
  assert.throws(() => genesis(args, { op: 'darkwing-genesis-1', by: 'darkwing', at }), { code: 'not-allowed' });
  assert.throws(() => genesisArgs('no source\n', { branch: 'main', root: '/', queueMd: '' }), { code: 'map-no-source' });
  assert.throws(() => genesisArgs(MAP, { branch: 'main', root: '/', queueMd: 'no markers' }), { code: 'table-markers' });
});

test('map drift reports changed lines and rows', () => {
  assert.deepEqual(mapDrift(MAP, TABLE, TABLE), { lines: [], rows: [] });
  const current = TABLE.replace('| darkwing |', '| flicker |');
  const drift = mapDrift(MAP, TABLE, current);
  assert.deepEqual(drift.rows, [{ id: 1, field: 'owner', map: 'darkwing', table: 'flicker' }]);
  assert.deepEqual(
    drift.lines.map((l) => [l.added, l.line]),
    [
      [false, 3],
      [true, 3],
    ],
  );
});
