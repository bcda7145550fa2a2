/**
 * For the benchmark's breakdown: N events through trigger's own client, 8 loops in flight, without the
 * batch's reading and bookkeeping. Usage: node bench-client-loop.mjs <url> <n>
 */
import { createClient } from '../dist/index.js';
const [url, N] = [process.argv[2], Number(process.argv[3])];
const c = createClient({ baseUrl: url, apiKey: 'bench_key_not_secret_1234', connections: 8 });
let sent = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (sent < N) {
      sent++;
      await c.fire({ triggerId: 'bench', userId: 'user' + sent, value: '1.5' });
    }
  }),
);
await c.close();
