// Every scenario in fixtures/scenarios through the shim: each step's receipt or refusal kind,
// then the final bytes and table body byte for byte against fixtures/golden/<name>/, which
// the native core wrote (core/tests/scenarios.rs drives the same files).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { bodyStatus, renderBody, replay, verify } from '../index.mjs';
import { read, readJson, runScenario, scenarioNames } from '../testing/fixtures.mjs';

const names = scenarioNames();

test('there are scenarios to run', () => {
  assert.ok(names.length >= 3, `only ${names.length} scenarios`);
});

for (const name of names) {
  test(`scenario ${name} matches its receipts and golden files`, () => {
    const sc = readJson('scenarios', `${name}.json`);
    const bytes = runScenario(sc);
    assert.deepEqual(Buffer.from(bytes), read('golden', name, 'queue.json'), `${name}/queue.json`);
    const body = renderBody(bytes);
    assert.equal(body, read('golden', name, 'body.md').toString('utf8'), `${name}/body.md`);
    assert.deepEqual(bodyStatus(bytes, body), { status: 'current' });
  });

  test(`golden ${name} replays to the rows it holds`, () => {
    const golden = read('golden', name, 'queue.json');
    const file = JSON.parse(golden.toString('utf8'));
    const state = replay(golden);
    assert.equal(state.revision, file.revision);
    assert.deepEqual(state.rows, file.rows);
    assert.equal(state.root, file.canonicalRoot);
    assert.equal(state.branch, file.log[0].args.branch);
  });
}

// Golden files an earlier build wrote for a scenario whose bytes this build writes otherwise:
// they still verify and render byte for byte (core/tests/scenarios.rs reads the same list).
for (const name of ['coordination-semantics7']) {
  test(`older golden ${name} still verifies and renders as it was written`, () => {
    const golden = read('golden', name, 'queue.json');
    const body = read('golden', name, 'body.md').toString('utf8');
    assert.doesNotThrow(() => verify(golden));
    assert.equal(renderBody(golden), body);
    assert.deepEqual(bodyStatus(golden, body), { status: 'current' });
  });
}
