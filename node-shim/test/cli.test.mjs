// cli.mjs is a drop-in for packages/queue/src/cli.mjs: against the real binary it gives the
// same exit code, stdout and stderr as running the binary directly (--json documents too);
// against a stand-in it passes every argument, stdin, exit codes 0-4 and deaths by signal
// through unchanged; and it refuses to act on a checkout whose root it does not lie under.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
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

test('help exits 0, a usage error 4 and a value that is no row id 2, as the binary does', () => {
  assert.match(same(['--help'], 0).stdout, /Usage: mosaic-queue/);
  same([], 4);
  same(['no-such-verb'], 4);
  const refused = same(['move', 'not-a-number', 'done'], 2);
  assert.equal(
    refused.stderr,
    'mosaic-queue: refused: row id "not-a-number" is not a whole number; give digits, as in 12\n',
  );
});

test('verify --snapshot: a golden pair 0, an edited or diverged one 2, a missing one 2', () => {
  const good = snapshotDir('good', read('golden', 'basic', 'body.md').toString('utf8'));
  const edited = snapshotDir('edited', '| edited |\n');
  same(['verify', '--snapshot', good], 0);
  same(['verify', '--snapshot', edited], 2);
  const base = join(scratch, 'other-base.json');
  writeFileSync(base, read('golden', 'genesis-only', 'queue.json'));
  same(['verify', '--snapshot', good, '--base', base], 2);
  // A snapshot whose files do not exist is refused, as the binary refuses it (the shim
  // passes the binary's exit code through).
  same(['verify', '--snapshot', join(scratch, 'missing')], 2);
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

// A canonical checkout built by the binary's own demo, with a copy of cli.mjs placed where the
// contract puts it, under the checkout's root.
function demoCheckout() {
  const out = run(nativeBinary(), ['demo']);
  assert.equal(out.status, 0, out.stderr);
  const dir = out.stdout.split('\n')[0].replace(/^demo checkout: /, '');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const inside = join(dir, 'packages', 'queue', 'src', 'cli.mjs');
  mkdirSync(join(dir, 'packages', 'queue', 'src'), { recursive: true });
  copyFileSync(cli, inside);
  return { dir, inside };
}

test('--json documents and failures pass through the shim unchanged', () => {
  const { dir, inside } = demoCheckout();
  const bin = nativeBinary();
  const both = (args, wantStatus) => {
    const direct = run(bin, args, { cwd: dir });
    const shim = run(process.execPath, [inside, ...args], { cwd: dir, env: { ...baseEnv, MOSAIC_QUEUE_BIN: bin } });
    assert.equal(direct.status, wantStatus, `${args.join(' ')}: ${direct.stderr}`);
    assert.deepEqual(shim, direct, args.join(' '));
    return direct;
  };
  const list = JSON.parse(both(['list', '--json'], 0).stdout);
  assert.equal(list.revision, 7);
  const refused = both(['release', '2', '--op', 'flicker-2-release-9', '--by', 'flicker', '--json'], 2);
  assert.deepEqual(JSON.parse(refused.stdout), {
    error: {
      exit: 2,
      kind: 'not-allowed',
      message: 'refused: flicker may not release row 2: the owner, jason or sage',
      next: 'nothing was changed: correct the data or the request the message names',
      retryable: false,
    },
  });
  assert.equal(refused.stderr, 'mosaic-queue: refused: flicker may not release row 2: the owner, jason or sage\n');
  const usage = both(['move', '2', '--json'], 4);
  assert.equal(JSON.parse(usage.stdout).error.kind, 'usage');
  assert.equal(usage.stderr.split('\n').length, 2, usage.stderr);
});

test('the shim refuses a checkout whose root it does not lie under, as the contract says', () => {
  const { dir, inside } = demoCheckout();
  const bin = nativeBinary();
  const env = { ...baseEnv, MOSAIC_QUEUE_BIN: bin };
  const before = run('git', ['status', '--porcelain'], { cwd: dir }).stdout;
  // The workspace's own cli.mjs lies outside the demo checkout.
  const outside = run(process.execPath, [cli, 'list'], { cwd: dir, env });
  const self = realpathSync(cli);
  const root = realpathSync(dir);
  assert.deepEqual(outside, {
    status: 2,
    signal: null,
    stdout: '',
    stderr:
      `mosaic-queue: this cli.mjs (${self}) does not lie under the checkout it would act on (${root}); ` +
      "run that checkout's own packages/queue/src/cli.mjs\n",
  });
  const json = run(process.execPath, [cli, 'next', 'darkwing', '--json'], { cwd: dir, env });
  assert.equal(json.status, 2);
  assert.equal(JSON.parse(json.stdout).error.kind, 'cli-outside-root');
  // A change refused by the rule writes nothing.
  const move = run(process.execPath, [cli, 'move', '2', 'blocked', '--reason', 'x', '--op', 'darkwing-2-block-9', '--by', 'darkwing'], { cwd: dir, env });
  assert.equal(move.status, 2);
  assert.equal(run('git', ['status', '--porcelain'], { cwd: dir }).stdout, before);
  assert.equal(JSON.parse(run(bin, ['list', '--json'], { cwd: dir }).stdout).revision, 7);

  // From a subdirectory, and through a symlink to the root, the copy under the root runs.
  const sub = join(dir, 'docs', 'plans');
  assert.equal(run(process.execPath, [inside, 'list'], { cwd: sub, env }).status, 0);
  const link = join(scratch, 'root-link');
  symlinkSync(dir, link);
  assert.equal(run(process.execPath, [join(link, 'packages', 'queue', 'src', 'cli.mjs'), 'list'], { cwd: link, env }).status, 0);

  // verify --snapshot and the verbs that act on no checkout are not held to the rule.
  const snap = join(scratch, 'rule-snapshot');
  assert.equal(run(bin, ['snapshot', '--out', snap], { cwd: dir }).status, 0);
  assert.equal(run(process.execPath, [cli, 'verify', '--snapshot', snap], { cwd: dir, env }).status, 0);
  assert.equal(run(process.execPath, [cli, 'move', '--help'], { cwd: dir, env }).status, 0);
});
