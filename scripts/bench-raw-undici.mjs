/**
 * For the benchmark's breakdown: N POSTs straight through an undici Pool, 8 in flight, with no code of
 * trigger's: the most a batch built on undici could do. Usage: node bench-raw-undici.mjs <url> <n>
 */
import { Pool } from 'undici';
const [url, N] = [process.argv[2], Number(process.argv[3])];
const headers = {
  authorization: 'Bearer bench_key_not_secret_1234',
  'content-type': 'application/json',
  accept: 'application/json',
  'user-agent': 'x',
};
const pool = new Pool(url, { connections: 8 });
let sent = 0,
  done = 0;
await new Promise((resolve) => {
  const one = () => {
    if (sent >= N) return;
    sent++;
    pool.dispatch(
      { origin: url, path: '/v1/triggers/bench/users/user' + sent + '/events', method: 'POST', headers, body: '{"value":1.5}' },
      {
        onRequestStart() {},
        onResponseStart() {},
        onResponseData() {},
        onResponseEnd() {
          if (++done === N) resolve();
          else one();
        },
        onResponseError(c, e) {
          console.error(e);
          process.exit(1);
        },
      },
    );
  };
  for (let i = 0; i < 8; i++) one();
});
await pool.close();
