import { createClient } from '../dist/client/client.js';
const [url, N] = [process.argv[2], Number(process.argv[3])];
const c = createClient({ baseUrl: url, apiKey: 'bench_key_not_secret_1234', connections: 8 });
let sent = 0;
await Promise.all(Array.from({ length: 8 }, async () => { while (sent < N) { sent++; await c.fire({ triggerId: 'bench', userId: 'user' + sent, value: '1.5' }); } }));
await c.close();
