#!/usr/bin/env node
import module from 'node:module';
module.enableCompileCache?.(); // Node 22.1+: reuse compiled code between runs, a large share of start-up
await (await import('../dist/cli.js')).main();
