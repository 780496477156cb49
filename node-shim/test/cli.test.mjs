// cli.mjs is a drop-in for packages/queue/src/cli.mjs: against the real binary it gives the
// same exit code, stdout and stderr as running the binary directly; against a stand-in it
// passes every argument, stdin, exit codes 0-4 and deaths by signal through unchanged.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

import { nativeBinary, queueMd, read } from '../testing/fixtures.mjs';

const cli = fileURLToPath(new URL('../cli.mjs', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mosaic-queue-shim-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const baseEnv = { ...process.env };
delete baseEnv.MOSAIC_QUEUE_BIN;
delete baseEnv.CARGO_TARGET_DIR;

function run(command, args, { cwd = scratch, env = baseEnv, input } = {}) {
  const r = spawnSync(command, args, { cwd, env, input, encoding: 'utf8' });
  assert.ifError(r.error);
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

function viaCli(args, { bin, ...opts } = {}) {
  const env = { ...(opts.env ?? baseEnv) };
  if (bin !== undefined) env.MOSAIC_QUEUE_BIN = bin;
  return run(process.execPath, [cli, ...args], { ...opts, env });
}

/** Runs `args` on the binary directly and through cli.mjs; both must agree exactly. */
function same(args, wantStatus, cwd = scratch) {
  const bin = nativeBinary();
  const direct = run(bin, args, { cwd });
  const shim = viaCli(args, { bin, cwd });
  assert.equal(direct.status, wantStatus, `${args.join(' ')}: ${direct.stderr}`);
  assert.deepEqual(shim, direct, args.join(' '));
  return direct;
}

function snapshotDir(name, body) {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'queue.json'), read('golden', 'basic', 'queue.json'));
  writeFileSync(join(dir, 'QUEUE.md'), queueMd(body));
  return dir;
}

test('help exits 0 and a usage error 4, as the binary does', () => {
  assert.match(same(['--help'], 0).stdout, /Usage: mosaic-queue/);
  same([], 4);
  same(['move', 'not-a-number', 'done'], 4);
  same(['no-such-verb'], 4);
});

test('verify --snapshot: a golden pair 0, an edited or diverged one 2, a missing one 1', () => {
  const good = snapshotDir('good', read('golden', 'basic', 'body.md').toString('utf8'));
  const edited = snapshotDir('edited', '| edited |\n');
  same(['verify', '--snapshot', good], 0);
  same(['verify', '--snapshot', edited], 2);
  const base = join(scratch, 'other-base.json');
  writeFileSync(base, read('golden', 'genesis-only', 'queue.json'));
  same(['verify', '--snapshot', good, '--base', base], 2);
  // A snapshot that cannot be read is an operation that failed, not a refusal.
  same(['verify', '--snapshot', join(scratch, 'missing')], 1);
});

test('a read outside a repository fails with the binary own code and words', () => {
  const outside = join(scratch, 'not-a-repo');
  mkdirSync(outside);
  const r = same(['list'], 2, outside);
  assert.match(r.stderr, /not inside a git checkout/);
});

// A stand-in binary that echoes its arguments and exits or dies as they say.
const standIn = join(scratch, 'stand-in');
writeFileSync(
  standIn,
  `#!/bin/sh
printf 'argc=%s\\n' "$#"
for a in "$@"; do printf '[%s]\\n' "$a"; done
printf 'to stderr\\n' >&2
case "$1" in
  exit) exit "$2" ;;
  signal) kill -s "$2" $$ ;;
  stdin) cat ;;
esac
`,
);
chmodSync(standIn, 0o755);

test('every argument reaches the binary unchanged, and codes 0 to 4 come back', () => {
  for (const code of [0, 1, 2, 3, 4]) {
    const args = ['exit', String(code), '', 'two words', '--by=dárkwing', "it's \"quoted\"", '$HOME', '*'];
    const r = viaCli(args, { bin: standIn });
    assert.equal(r.status, code);
    assert.equal(r.stdout, `argc=${args.length}\n${args.map((a) => `[${a}]\n`).join('')}`);
    assert.equal(r.stderr, 'to stderr\n');
  }
});

test('stdin reaches the binary', () => {
  const r = viaCli(['stdin'], { bin: standIn, input: 'line one\nline two\n' });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'argc=1\n[stdin]\nline one\nline two\n');
});

test('a binary killed by a signal kills the shim the same way, or exits 128+n', () => {
  const term = viaCli(['signal', 'TERM'], { bin: standIn });
  assert.deepEqual([term.status, term.signal], [null, 'SIGTERM']);
  const usr1 = viaCli(['signal', 'USR1'], { bin: standIn });
  assert.deepEqual([usr1.status, usr1.signal], [128 + 10, null]);
});

test('without MOSAIC_QUEUE_BIN the newer workspace build runs, and none is a clear failure', () => {
  const target = join(scratch, 'target');
  const env = { ...baseEnv, CARGO_TARGET_DIR: target };
  const none = viaCli(['list'], { env });
  assert.equal(none.status, 1);
  assert.match(none.stderr, /^mosaic-queue: no mosaic-queue binary: set MOSAIC_QUEUE_BIN/);
  assert.equal(none.stdout, '');

  for (const [profile, seconds] of [['debug', 1000], ['release', 2000]]) {
    mkdirSync(join(target, profile), { recursive: true });
    const path = join(target, profile, 'mosaic-queue');
    writeFileSync(path, `#!/bin/sh\necho ${profile} "$@"\nexit 3\n`);
    chmodSync(path, 0o755);
    utimesSync(path, seconds, seconds);
  }
  assert.deepEqual(viaCli(['a', 'b'], { env }), { status: 3, signal: null, stdout: 'release a b\n', stderr: '' });
  utimesSync(join(target, 'debug', 'mosaic-queue'), 3000, 3000);
  assert.equal(viaCli(['a'], { env }).stdout, 'debug a\n');
});

test('a MOSAIC_QUEUE_BIN that cannot run is a clear failure', () => {
  const r = viaCli(['list'], { bin: join(scratch, 'no-such-binary') });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^mosaic-queue: cannot run .*no-such-binary: spawn .* ENOENT\n$/);
});
