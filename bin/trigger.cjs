#!/usr/bin/env node
'use strict';
// CommonJS, so that `trigger --version` (which scripts call often) is answered without Node's ES
// module loader: 1.15x a bare `node -e 0` instead of 1.48x. Everything else is the ES module bundle.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${require('../dist/version.cjs').VERSION}\n`);
} else {
  require('node:module').enableCompileCache?.(); // Node 22.1+: reuse compiled code between runs
  import('../dist/cli.js').then(async (cli) => {
    process.exitCode = await cli.main();
  });
}
