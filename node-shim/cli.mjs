#!/usr/bin/env node
// Drop-in for packages/queue/src/cli.mjs: runs the native mosaic-queue binary with the same
// arguments and inherited stdio, and exits as it did. The binary is $MOSAIC_QUEUE_BIN, else the
// workspace build (target/debug or target/release, the newer when both exist). It keeps the
// contract's rule that the CLI's own file lies under the checkout it acts on, which the native
// binary leaves to it (docs/decisions.md).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join, relative, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

const workspace = fileURLToPath(new URL('..', import.meta.url));

// Re-raised on this process so a parent shell sees the same death; the others (SIGUSR1 starts
// Node's inspector, SIGSEGV meets V8's handler, SIGPIPE is ignored) become 128+n instead.
const RERAISE = new Set(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGKILL', 'SIGALRM', 'SIGUSR2']);
const FORWARD = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

function fail(message) {
  process.stderr.write(`mosaic-queue: ${message}\n`);
  process.exit(1);
}

function findBinary() {
  const given = process.env.MOSAIC_QUEUE_BIN;
  if (given) return given;
  const target = process.env.CARGO_TARGET_DIR || join(workspace, 'target');
  const builds = ['debug', 'release']
    .map((profile) => join(target, profile, 'mosaic-queue'))
    .filter((path) => existsSync(path))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (builds.length === 0) {
    fail(
      `no mosaic-queue binary: set MOSAIC_QUEUE_BIN, or build one with \`cargo build -p mosaic-queue\` ` +
        `(looked for ${join(target, 'debug', 'mosaic-queue')} and ${join(target, 'release', 'mosaic-queue')})`,
    );
  }
  return builds[0];
}

// Verbs that act on no checkout: the rule is the contract's for every verb but
// `verify --snapshot`; help, version, the demo's scratch checkout, completions and man pages
// read none either.
function actsOnCheckout(args) {
  const words = args.filter((a) => a !== '--json');
  const verb = words[0];
  if (verb === undefined) return false;
  if (['help', '--help', '-h', '--version', '-V', 'demo', 'completions', 'man'].includes(verb)) return false;
  if (words.includes('--help') || words.includes('-h')) return false;
  if (verb === 'verify' && words.some((a) => a === '--snapshot' || a.startsWith('--snapshot='))) return false;
  return true;
}

// The working directory's checkout root, by real path; null outside a git checkout (the binary
// then refuses with its own words).
function checkoutRoot() {
  const r = spawnSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' });
  if (r.status !== 0 || r.error) return null;
  try {
    return realpathSync(r.stdout.trim());
  } catch {
    return null;
  }
}

function refuseOutsideRoot(args) {
  if (!actsOnCheckout(args)) return;
  const root = checkoutRoot();
  if (root === null) return;
  const self = realpathSync(fileURLToPath(import.meta.url));
  const rel = relative(root, self);
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return;
  const message =
    `this cli.mjs (${self}) does not lie under the checkout it would act on (${root}); ` +
    `run that checkout's own packages/queue/src/cli.mjs`;
  process.stderr.write(`mosaic-queue: ${message}\n`);
  if (args.includes('--json')) {
    const error = {
      exit: 2,
      kind: 'cli-outside-root',
      message,
      next: "run that checkout's own packages/queue/src/cli.mjs",
      retryable: false,
    };
    process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  }
  process.exit(2);
}

refuseOutsideRoot(process.argv.slice(2));
const binary = findBinary();
const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });

// A signal sent to this process alone (not its process group) still reaches the binary.
const forward = (signal) => child.kill(signal);
for (const signal of FORWARD) process.on(signal, forward);

child.on('error', (err) => fail(`cannot run ${binary}: ${err.message}`));

child.on('exit', (code, signal) => {
  if (signal === null) process.exit(code);
  for (const s of FORWARD) process.removeListener(s, forward);
  if (RERAISE.has(signal)) process.kill(process.pid, signal);
  process.exitCode = 128 + (constants.signals[signal] ?? 0);
});
