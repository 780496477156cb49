#!/usr/bin/env node
// Benchmark helper: verifies FILE through the shim N times (default 7, after one warm-up run)
// and prints one JSON line, {"ms": <median milliseconds>, "wasmBytes": <size of the .wasm>}.
// host's bench_faces example spawns it to print Node / native; exit 2 if FILE is refused.

import { readFileSync, statSync } from 'node:fs';

const [file, runs = '7'] = process.argv.slice(2);
const n = Number(runs);
if (!file || !Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: node bench/verify-time.mjs FILE [N]\n');
  process.exit(4);
}

let shim;
try {
  shim = await import('../index.mjs');
} catch (err) {
  process.stderr.write(`verify-time: cannot load the shim: ${err.message}\n`);
  process.exit(1);
}
const { verify, wasmPath } = shim;
const bytes = readFileSync(file);

try {
  verify(bytes);
} catch (err) {
  process.stderr.write(`verify-time: ${file} is refused (${err.code}): ${err.message}\n`);
  process.exit(2);
}

const times = [];
for (let i = 0; i < n; i += 1) {
  const start = process.hrtime.bigint();
  verify(bytes);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
const mid = Math.floor(n / 2);
const ms = n % 2 === 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
process.stdout.write(`${JSON.stringify({ ms: Number(ms.toFixed(3)), wasmBytes: statSync(wasmPath).size })}\n`);
