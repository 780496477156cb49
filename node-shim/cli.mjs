#!/usr/bin/env node
// Drop-in for packages/queue/src/cli.mjs: runs the native mosaic-queue binary with the same
// arguments and inherited stdio, and exits as it did. The binary is $MOSAIC_QUEUE_BIN, else the
// workspace build (target/debug or target/release, the newer when both exist).

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
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
