#!/usr/bin/env node
// The `rosetta` command: runs the compiled CLI (npm install builds it through `prepare`).
require('../dist/src/cli/main.js')
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exitCode = 1;
    },
  );
