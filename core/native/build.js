#!/usr/bin/env node
// Builds malloc-trim.node (see malloc-trim.c) with the system C compiler against the running Node's
// own headers: no download, no node-gyp. Never fails the install: without a compiler, Node headers or
// glibc the service runs without trimming, and this says so loudly.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, 'malloc-trim.c');
const target = path.join(__dirname, 'build', 'malloc-trim.node');
const includeDir = [path.join(path.dirname(process.execPath), '..', 'include', 'node'), '/usr/include/node'].find((d) =>
  fs.existsSync(path.join(d, 'node_api.h')),
);

function skip(reason) {
  console.error(`rosetta: SKIPPING the native memory trim (core/native): ${reason}; freed native memory stays resident until reused`);
}

if (process.platform !== 'linux') skip(`only glibc on Linux needs it, this is ${process.platform}`);
else if (includeDir === undefined) skip("Node's headers (node_api.h) are not installed");
else {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const cc = process.env.CC || 'cc';
    execFileSync(cc, ['-O2', '-shared', '-fPIC', `-I${includeDir}`, '-o', target, source], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    skip(
      `the C compiler failed: ${String(e.stderr || e.message)
        .trim()
        .split('\n')
        .slice(-3)
        .join(' ')}`,
    );
  }
}
