/**
 * The benchmark's start-up floor: one POST with node:http and nothing else, as `trigger fire` makes
 * it. CommonJS, as bin/trigger.cjs is: the same POST as an ES module costs Node's ES module loader
 * too (2.62x `node -e 0` against 1.48x on Node 24), which would flatter every ratio against it.
 * Usage: node bench-node-post.cjs <url>
 */
'use strict';
const { Buffer } = require('node:buffer');
const http = require('node:http');
const body = '{"value":9.99}';
const req = http.request(`${process.argv[2]}/v1/triggers/bench/users/alice/events`, {
  method: 'POST',
  headers: {
    authorization: 'Bearer bench_key_not_secret_1234',
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  },
});
req.on('response', (res) => res.resume().on('end', () => process.exit(res.statusCode === 200 ? 0 : 1)));
req.end(body);
