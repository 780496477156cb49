// Canonical bytes are what Node itself prints: every canonical fixture equals
// `JSON.stringify(JSON.parse(text), null, 2) + "\n"`, every file the shim accepts as
// canonical does too, and `serialize` gives those bytes back from the parsed value.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { parse, serialize } from '../index.mjs';
import { badCorpus, fixtures, read, scenarioNames } from '../testing/fixtures.mjs';

function nodeBytes(buffer) {
  return Buffer.from(`${JSON.stringify(JSON.parse(buffer.toString('utf8')), null, 2)}\n`, 'utf8');
}

const goldens = readdirSync(join(fixtures, 'golden')).sort();

test('the goldens, scenarios and expected.json are as Node prints them', () => {
  const files = [
    ...goldens.map((name) => ['golden', name, 'queue.json']),
    ...scenarioNames().map((name) => ['scenarios', `${name}.json`]),
    ['bad', 'expected.json'],
  ];
  assert.ok(files.length >= 7);
  for (const parts of files) {
    const bytes = read(...parts);
    assert.deepEqual(nodeBytes(bytes), bytes, parts.join('/'));
  }
});

test('every fixture the shim parses as canonical is what Node prints, and serializes back', () => {
  const candidates = [
    ...goldens.map((name) => ['golden', name, 'queue.json']),
    ...badCorpus().map((name) => ['bad', name]),
  ];
  let accepted = 0;
  for (const parts of candidates) {
    const bytes = read(...parts);
    let doc;
    try {
      doc = parse(bytes);
    } catch (err) {
      assert.equal(typeof err.code, 'string', `${parts.join('/')}: ${err}`);
      continue;
    }
    accepted += 1;
    assert.deepEqual(nodeBytes(bytes), bytes, parts.join('/'));
    assert.deepEqual(Buffer.from(serialize(doc)), bytes, `${parts.join('/')}: serialize`);
  }
  // The goldens, and the corpus files whose bytes are fine but whose history is not.
  assert.ok(accepted > 100, `only ${accepted} accepted`);
});

test('a file Node would print differently is refused as not canonical', () => {
  const golden = read('golden', 'basic', 'queue.json');
  const compact = Buffer.from(`${JSON.stringify(JSON.parse(golden.toString('utf8')))}\n`);
  assert.throws(() => parse(compact), { code: 'not-canonical' });
  const fourSpaces = Buffer.from(`${JSON.stringify(JSON.parse(golden.toString('utf8')), null, 4)}\n`);
  assert.throws(() => parse(fourSpaces), { code: 'not-canonical' });
});

test('serialize puts keys in schema order', () => {
  const golden = read('golden', 'basic', 'queue.json');
  const doc = JSON.parse(golden.toString('utf8'));
  const reversed = (obj) => Object.fromEntries(Object.entries(obj).reverse());
  const shuffled = reversed({ ...doc, rows: doc.rows.map(reversed) });
  assert.notDeepEqual(nodeBytes(Buffer.from(JSON.stringify(shuffled))), golden);
  assert.deepEqual(Buffer.from(serialize(shuffled)), golden);
  assert.deepEqual(Buffer.from(serialize(JSON.stringify(shuffled))), golden);
});

test('serialize refuses a document outside the schema', () => {
  assert.throws(() => serialize({ version: 1 }), { code: 'schema' });
  assert.throws(() => serialize('{'), { code: 'json-syntax' });
  assert.throws(() => serialize(42), { code: 'bad-argument' });
});
