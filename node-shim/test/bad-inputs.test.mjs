// The bad-input corpus in fixtures/bad through the shim: every file is refused with exactly
// the kind (and, for entry-refused, the verb refusal) that expected.json names and that the
// native core gives (core/tests/bad_inputs.rs), with a one-line message and no crash.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { verify } from '../index.mjs';
import { badCorpus, read, readJson } from '../testing/fixtures.mjs';

const expected = readJson('bad', 'expected.json');
const files = badCorpus();

test('the corpus and expected.json name the same files', () => {
  assert.deepEqual(files, Object.keys(expected).sort());
  assert.ok(files.length >= 110, `only ${files.length} corpus files`);
});

test('every corpus file is refused with its kind', () => {
  const failures = [];
  for (const name of files) {
    const want = expected[name];
    try {
      verify(read('bad', name));
      failures.push(`${name}: accepted (${want.why})`);
      continue;
    } catch (err) {
      assert.ok(err instanceof Error, `${name}: threw a non-Error`);
      if (err.code !== want.kind) {
        failures.push(`${name}: kind ${err.code} but expected ${want.kind} (${want.why}): ${err.message}`);
      } else if (err.refused !== want.refused) {
        failures.push(`${name}: refused as ${err.refused}, expected ${want.refused}: ${err.message}`);
      } else if (err.message.includes('\n') || err.message === '') {
        failures.push(`${name}: message is not one line: ${JSON.stringify(err.message)}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

const MILLION = 1_000_000;

test('a million nested arrays are refused without a crash', () => {
  const bytes = Buffer.alloc(2 * MILLION + 1);
  bytes.fill('[', 0, MILLION);
  bytes.fill(']', MILLION, 2 * MILLION);
  bytes[2 * MILLION] = 0x0a;
  assert.throws(() => verify(bytes), { code: 'schema' });
});

test('a million nested arrays inside a set value hit the recursion limit', () => {
  const golden = read('golden', 'basic', 'queue.json').toString('utf8');
  const target = '"value": "docs/plans/queue.md#data"';
  assert.equal(golden.split(target).length, 2);
  const deep = golden.replace(target, `"value": ${'['.repeat(MILLION)}${']'.repeat(MILLION)}`);
  assert.throws(() => verify(deep), (err) => {
    assert.equal(err.code, 'json-syntax');
    assert.match(err.message, /recursion limit/);
    assert.ok(!err.message.includes('\n'));
    return true;
  });
});
