import { spawn } from 'node:child_process';
import readline from 'node:readline';
const child = spawn(process.execPath, ['scripts/bench-server.mjs'], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
const url = (await lines.next()).value;
const N = 20000;
const env = { ...process.env, TRIGGER_API_KEY: 'bench_key_not_secret_1234', TRIGGER_BASE_URL: url, TRIGGER_CONFIG_DIR: '/tmp/bh/c' };
const variants = {
  autocannon: ['node_modules/autocannon/autocannon.js', '-c', '8', '-a', String(N), '-m', 'POST', '-b', '{"value":1.5}', '-H', 'authorization=Bearer bench_key_not_secret_1234', '-H', 'content-type=application/json', `${url}/v1/triggers/bench/users/user1/events`],
  raw: ['scripts/tp-raw-tmp.mjs', url, String(N)],
  client: ['scripts/tp-client-tmp.mjs', url, String(N)],
  batch: ['bin/trigger.js', 'batch', '/tmp/rows.csv', '-q'],
};
const res = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let r = 0; r < Number(process.env.ROUNDS ?? 3); r++) {
  for (const [name, args] of Object.entries(variants)) {
    child.stdin.write('reset\n');
    await new Promise((ok) => spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }).on('close', ok));
    child.stdin.write('count\n');
    const { count, spanMs } = JSON.parse((await lines.next()).value);
    res[name].push(Math.round(((count - 1) * 1000) / spanMs));
  }
}
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(12), v.join(' '), ' ratio', (v.reduce((a, b) => a + b) / res.autocannon.reduce((a, b) => a + b)).toFixed(2));
child.stdin.end();
