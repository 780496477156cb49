// The package as npm ships it: `npm pack` gives a tarball holding the wasm module and the
// types, and that tarball installs into a scratch project with no network (the package has no
// runtime dependencies) and answers verify and apply there.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

import { fixtures } from '../testing/fixtures.mjs';

const shim = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mosaic-queue-pack-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// npm on PATH next to this node, quiet, and never asking the registry.
const npmEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
const npm = (args, cwd) => execFileSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8' });

test('npm pack holds the module and types; the tarball installs offline and runs verify and apply', () => {
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], shim));
  const files = packed[0].files.map((f) => f.path).sort();
  for (const want of [
    'package.json',
    'index.mjs',
    'index.d.ts',
    'cli.mjs',
    'pkg/mosaic_queue_wasm.js',
    'pkg/mosaic_queue_wasm.d.ts',
    'pkg/mosaic_queue_wasm_bg.wasm',
  ]) {
    assert.ok(files.includes(want), `${want} is packed: ${files.join(', ')}`);
  }
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('node_modules/')), files.join(', '));
  const tarball = join(scratch, packed[0].filename);
  assert.ok(readdirSync(scratch).includes(packed[0].filename));

  const project = join(scratch, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "scratch", "version": "1.0.0", "private": true, "type": "module" }\n');
  npm(['install', '--offline', '--no-save', tarball], project);

  const script = `
import { readFileSync } from 'node:fs';
import { apply, verify } from '@mosaicstack/queue-core';
const golden = readFileSync(${JSON.stringify(join(fixtures, 'golden', 'basic', 'queue.json'))});
const v = verify(golden);
const w = apply(golden, { verb: 'note', id: 1, text: 'from the tarball' }, { op: 'jason-note-tarball', by: 'jason', at: '2026-12-01T09:00:00.000Z' });
const again = verify(w.bytes);
console.log(JSON.stringify({ revision: v.revision, receipt: w.receipt, after: again.revision }));
`;
  writeFileSync(join(project, 'run.mjs'), script);
  const out = JSON.parse(execFileSync(process.execPath, ['run.mjs'], { cwd: project, encoding: 'utf8' }));
  const revision = JSON.parse(readFileSync(join(fixtures, 'golden', 'basic', 'queue.json'), 'utf8')).revision;
  assert.deepEqual(out, {
    revision,
    receipt: `ok jason-note-tarball rev ${revision + 1} note 1`,
    after: revision + 1,
  });
  // The types came along where the package's `types` points.
  const types = readFileSync(join(project, 'node_modules', '@mosaicstack', 'queue-core', 'index.d.ts'), 'utf8');
  assert.match(types, /export function verify/);
});
