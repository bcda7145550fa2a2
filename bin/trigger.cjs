#!/usr/bin/env node
'use strict';
// CommonJS and small: start-up is most of what `trigger fire` costs. What runs first (the inspector
// guard, --version, the code cache of dist/cli.cjs) is src/startup.ts, built to dist/startup.cjs.
require('../dist/startup.cjs').start(require('node:path').join(__dirname, '..', 'dist', 'cli.cjs'));
