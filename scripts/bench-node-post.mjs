/**
 * For the benchmark's floor: one POST with node:http and nothing else, as `trigger fire` makes it.
 * Usage: node bench-node-post.mjs <url>
 */
import { Buffer } from 'node:buffer';
import http from 'node:http';
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
