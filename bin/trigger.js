#!/usr/bin/env node
import module from 'node:module';
import { setFlagsFromString } from 'node:v8';

// undici parses HTTP with WebAssembly; on Node 20, V8's optimising tier-up of it runs in the
// background and the process waits for it at exit, about 100 ms on every `trigger fire`. The
// baseline compiler is plenty for a few requests; a batch sends thousands and gains from the
// optimised code. Node 22 and 24 do not wait at exit, and there the flag cost 14-18 ms.
if (process.versions.node.startsWith('20.') && process.argv[2] !== 'batch') setFlagsFromString('--liftoff-only');
module.enableCompileCache?.(); // Node 22.1+: reuse compiled code between runs, a large share of start-up
await (await import('../dist/cli.js')).main();
