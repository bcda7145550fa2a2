/**
 * The benchmark's service: a minimal node:http server in its own process, answering every request
 * with 200 {"success":true}. Prints its URL; on "count\n" on stdin prints how many requests it got
 * since the last "reset\n" and the milliseconds from the first to the last, as JSON.
 */
import http from 'node:http';
import readline from 'node:readline';

let count = 0;
let first = 0;
let last = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    last = performance.now();
    if (count++ === 0) first = last;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 16 });
    res.end('{"success":true}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line === 'count') console.log(JSON.stringify({ count, spanMs: last - first }));
  if (line === 'reset') count = 0;
}
server.close();
server.closeAllConnections();
