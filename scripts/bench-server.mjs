/**
 * The benchmark's service: a minimal node:http server in its own process, answering every request
 * with 200 {"success":true}. Prints its URL; on "count\n" on stdin prints how many requests it got.
 */
import http from 'node:http';
import readline from 'node:readline';

let count = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 16 });
    res.end('{"success":true}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line === 'count') console.log(count);
  if (line === 'reset') count = 0;
}
server.close();
server.closeAllConnections();
