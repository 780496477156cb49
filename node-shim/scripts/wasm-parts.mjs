#!/usr/bin/env node
// Where a wasm module's bytes go: reads its sections, the function bodies of its code section and
// the names of its name section, and prints the code grouped into the parts of this project
// (serde's derived code, the readers, replay, the cut, leases, the standard library...).
//
// usage: node node-shim/scripts/wasm-parts.mjs FILE [--modules] [--top N]
//   FILE       a module built with its name section (docs/migration.md says how)
//   --modules  group by module path (crate::module::module) instead of by part
//   --top N    also list the N largest functions
// Sizes are the bytes of each function body as stored, size prefix included.

import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--top');
const byModule = args.includes('--modules');
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 0;
if (!file || !Number.isInteger(top) || top < 0) {
  process.stderr.write('usage: node node-shim/scripts/wasm-parts.mjs FILE [--modules] [--top N]\n');
  process.exit(4);
}

const bytes = readFileSync(file);
if (bytes.readUInt32LE(0) !== 0x6d736100) {
  process.stderr.write(`${file}: not a wasm module\n`);
  process.exit(1);
}

let pos = 8;
function leb() {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[pos++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return value;
}
function text() {
  const len = leb();
  const s = bytes.toString('utf8', pos, pos + len);
  pos += len;
  return s;
}

const SECTIONS = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export',
  'start', 'element', 'code', 'data', 'data count', 'tag'];
const sections = []; // [label, bytes including the section header]
let importedFunctions = 0;
const bodies = []; // sizes, in code-section order
const names = new Map(); // function index -> name

while (pos < bytes.length) {
  const start = pos;
  const id = bytes[pos++];
  const size = leb();
  const end = pos + size;
  let label = SECTIONS[id] ?? `section ${id}`;
  if (id === 0) {
    const name = text();
    label = `custom "${name}"`;
    if (name === 'name') readNames(end);
  } else if (id === 2) {
    for (let n = leb(); n > 0; n--) {
      text();
      text();
      const kind = bytes[pos++];
      if (kind === 0) importedFunctions++;
      skipImport(kind);
    }
  } else if (id === 10) {
    for (let n = leb(); n > 0; n--) {
      const at = pos;
      const len = leb();
      pos += len;
      bodies.push(pos - at);
    }
  }
  sections.push([label, end - start]);
  pos = end;
}

function skipImport(kind) {
  if (kind === 0) leb(); // function: its type index
  else if (kind === 1) { pos++; limits(); } // table: element type, limits
  else if (kind === 2) limits(); // memory
  else if (kind === 3) pos += 2; // global: value type, mutability
  else if (kind === 4) { pos++; leb(); } // tag
  else throw new Error(`import of unknown kind ${kind}`);
}
function limits() {
  const flags = bytes[pos++];
  leb();
  if (flags & 1) leb();
}

function readNames(end) {
  while (pos < end) {
    const sub = bytes[pos++];
    const size = leb();
    const next = pos + size;
    if (sub === 1) {
      for (let n = leb(); n > 0; n--) {
        const index = leb();
        names.set(index, text());
      }
    }
    pos = next;
  }
}

if (names.size === 0) {
  process.stderr.write(`${file} has no function names: build it with its name section kept\n`);
  process.exit(1);
}

// A demangled name with crate hashes and the symbol hash taken off.
function clean(name) {
  return name.replace(/\[[0-9a-f]+\]/g, '').replace(/::h[0-9a-f]{16}$/, '');
}

// The path a function belongs to: an impl's self type (`<A as B>::f` is A's), a free or
// inherent function's own path, without generic arguments.
function owner(name) {
  let s = name;
  while (s.startsWith('<')) {
    let depth = 0;
    let as = -1;
    let close = -1;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '<') depth++;
      else if (c === '>') {
        depth--;
        if (depth === 0) { close = i; break; }
      } else if (depth === 1 && s.startsWith(' as ', i) && as < 0) as = i;
    }
    s = s.slice(1, as >= 0 ? as : close);
    s = s.replace(/^(&mut |&|\*const |\*mut |dyn |\[|\()+/, '');
  }
  const generic = s.indexOf('<');
  return generic >= 0 ? s.slice(0, generic) : s;
}

// Whether a function is an impl of a serde trait for a type of `crate`, or nested in one (a
// derived visitor), in either spelling rustc demangles to (`_::<impl Trait for Type>` or
// `<Type as Trait>`).
function serdeOf(crate, name) {
  return new RegExp(`_::<impl serde_core::(de|ser)::\\w+ for ${crate}::`).test(name) ||
    new RegExp(`^<+${crate}::[^ ]* as serde_core::(de|ser)::\\w+>`).test(name);
}

// The parts, first match wins: each is [label, test], the test given the cleaned name and its
// owner.
const core = 'mosaic_queue_core::';
const inCore = (...mods) => (_, o) => mods.some((m) => o.startsWith(core + m + '::') || o === core + m);
const PARTS = [
  ['serde code of the core\'s types (derived and hand-written)', (n) => serdeOf('mosaic_queue_core', n)],
  ['serde code of the wasm crate\'s types', (n) => serdeOf('mosaic_queue_wasm', n)],
  ['serde_json\'s reader', (_, o) => /^serde_json::(de|read)(::|$)/.test(o)],
  ['serde_json\'s writer', (_, o) => /^serde_json::ser(::|$)/.test(o)],
  ['serde_json\'s Value and errors', (_, o) => o.startsWith('serde_json::')],
  ['serde\'s own impls and helpers', (n, o) => /^serde(_core)?::/.test(o) || /^serde(_core)?::/.test(n)],
  ['core: the strict reader', inCore('reader')],
  ['core: canonical JSON', inCore('canon', 'file', 'body')],
  ['core: errors and their text', inCore('error')],
  ['core: replay and state', inCore('replay', 'state', 'chain', 'entry', 'model')],
  // The cut's verb is the cut's, before the verbs take the rest of verbs::.
  ['core: the cut (epochs, archives)', inCore('cut', 'epoch', 'verbs::cut')],
  ['core: leases and signs of life', inCore('lease', 'liveness', 'time')],
  ['core: verbs and transitions', inCore('verbs', 'matrix', 'admission', 'ctx', 'review', 'rules', 'queue', 'secret')],
  ['core: render and QUEUE.md', inCore('render', 'table', 'layout', 'stale')],
  ['core: next (pick, order, waits)', inCore('pick', 'order', 'waits')],
  ['core: snapshots and the sandbox wire', inCore('snapshot', 'sandbox')],
  ['core: migration map', inCore('map')],
  ['core: other', (_, o) => o.startsWith(core)],
  ['wasm crate: exports and command reader', (_, o) => o.startsWith('mosaic_queue_wasm::')],
  ['wasm-bindgen glue', (n, o) => o.startsWith('wasm_bindgen') || n.includes('__wbindgen') || n.includes('__wbg') || n.includes('externref')],
  ['SHA-256', (_, o) => /^(sha2|digest|block_buffer|generic_array)::/.test(o)],
  ['the allocator', (_, o) => /^(dlmalloc|std::sys::alloc|__rdl|__rust_alloc|__rust_dealloc|__rust_realloc)/.test(o)],
  ['std: B-tree maps', (_, o) => o.startsWith('alloc::collections::btree')],
  ['std: sorting', (_, o) => o.startsWith('core::slice::sort')],
  ['std: float and integer formatting', (_, o) => /^core::(num::|fmt::(num|float))/.test(o)],
  ['std: formatting', (_, o) => o.startsWith('core::fmt') || o.startsWith('alloc::fmt')],
  ['std: drops', (n) => /^core::ptr::drop_in_place/.test(n)],
  ['std: vectors and strings', (_, o) => /^alloc::(vec|raw_vec|string|str|slice|boxed)/.test(o)],
  ['std: other', () => true],
];

function partOf(name) {
  const o = owner(name);
  for (const [label, test] of PARTS) if (test(name, o)) return label;
  return 'std: other';
}
function moduleOf(name) {
  const o = owner(name).split('::');
  // crate::module::module, the function's own name dropped when it is a free function
  const path = o.slice(0, Math.min(3, Math.max(1, o.length - 1)));
  return path.join('::');
}

const groups = new Map();
const functions = [];
let codeTotal = 0;
for (let i = 0; i < bodies.length; i++) {
  const raw = names.get(importedFunctions + i);
  const name = raw ? clean(raw) : `(function ${importedFunctions + i}, unnamed)`;
  const key = raw ? (byModule ? moduleOf(name) : partOf(name)) : '(unnamed)';
  const g = groups.get(key) ?? { bytes: 0, count: 0 };
  g.bytes += bodies[i];
  g.count++;
  groups.set(key, g);
  functions.push([bodies[i], name]);
  codeTotal += bodies[i];
}

const kb = (n) => (n / 1000).toFixed(1).padStart(7);
const pct = (n) => ((100 * n) / codeTotal).toFixed(1).padStart(5);
console.log(`${file}: ${bytes.length} bytes; code ${codeTotal} bytes in ${bodies.length} functions`);
console.log('');
console.log(`${'KB'.padStart(7)} ${'%code'.padStart(5)} ${'fns'.padStart(5)}  ${byModule ? 'module' : 'part'}`);
for (const [key, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes)) {
  console.log(`${kb(g.bytes)} ${pct(g.bytes)} ${String(g.count).padStart(5)}  ${key}`);
}
console.log('');
console.log('sections:');
for (const [label, size] of sections) console.log(`${kb(size)}  ${label}`);
if (top > 0) {
  console.log('');
  console.log(`the ${top} largest functions:`);
  for (const [size, name] of functions.sort((a, b) => b[0] - a[0]).slice(0, top)) {
    console.log(`${String(size).padStart(7)}  ${name}`);
  }
}
