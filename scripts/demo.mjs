/**
 * npm run demo: starts `trigger emulator` on a free port, fires a few events through the real CLI
 * (with and without a value, an awkward user id, a refusal and a bad value), shows what each side
 * printed, and stops the emulator. Uses a temporary config folder: your own settings are not touched.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A word for a POSIX shell: as it is when that is safe, else single-quoted. */
const quote = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'trigger.cjs');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-demo-'));
const log = path.join(work, 'events.ndjson');

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const heading = (text) =>
  console.log(`\n${color ? '\x1b[1;36m' : ''}── ${text} ${'─'.repeat(Math.max(0, 60 - text.length))}${color ? '\x1b[0m' : ''}`);

const env = { ...process.env, TRIGGER_CONFIG_DIR: path.join(work, 'config'), ...(color ? { FORCE_COLOR: '1' } : {}) };
for (const name of ['TRIGGER_API_KEY', 'TRIGGER_BASE_URL', 'TRIGGER_PROFILE']) delete env[name];

function indent(text) {
  return text
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`)
    .join('\n');
}

async function startEmulator() {
  const args = ['emulator', '--port', '0', '--trigger', 'purchase', 'signup', '--log', log];
  heading('start the emulator');
  console.log(`$ trigger ${args.map(quote).join(' ')}`);
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  const ended = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const banner = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator did not start:\n${stderr}`)), 10_000);
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      if (stderr.includes('Ctrl-C')) {
        clearTimeout(timer);
        resolve(stderr);
      }
    });
    void ended.then((code) => reject(new Error(`the emulator exited with ${code}:\n${stderr}`)));
  });
  console.log(indent(banner));
  const url = /export TRIGGER_BASE_URL=(\S+)/.exec(banner)?.[1];
  const key = /export TRIGGER_API_KEY=(\S+)/.exec(banner)?.[1];
  return {
    url,
    key,
    async stop() {
      child.kill('SIGINT');
      const code = await ended;
      return { code, stdout, stderr: stderr.slice(banner.length) };
    },
  };
}

function fire(args, extraEnv) {
  return new Promise((resolve) => {
    console.log(`\n$ trigger ${args.map(quote).join(' ')}`);
    const child = spawn(process.execPath, [bin, ...args], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (out) console.log(indent(out));
      if (err) console.log(indent(err));
      console.log(`  ${color ? '\x1b[2m' : ''}exit ${code}${color ? '\x1b[0m' : ''}`);
      resolve(code);
    });
  });
}

const emulator = await startEmulator();
const clientEnv = { TRIGGER_BASE_URL: emulator.url, TRIGGER_API_KEY: emulator.key };
const codes = [];
try {
  heading('fire events through the CLI (TRIGGER_BASE_URL and TRIGGER_API_KEY exported as shown)');
  codes.push(await fire(['fire', 'purchase', 'alice@example.com', '--value', '9.99'], clientEnv));
  codes.push(await fire(['fire', 'signup', '../bob/ 😀?#'], clientEnv));
  codes.push(await fire(['fire', 'purchase', 'carol', '--value', '12345678901234567890', '--json'], clientEnv));
  codes.push(await fire(['fire', 'refund', 'dave', '--value', '5'], clientEnv));
  codes.push(await fire(['fire', 'purchase', 'erin', '--value', '9,99'], clientEnv));
} finally {
  const stopped = await emulator.stop();
  heading('what the emulator printed (events on stdout, rejections on stderr)');
  console.log(indent(stopped.stdout));
  console.log(indent(stopped.stderr));
  heading(`what it recorded in ${log}`);
  console.log(indent(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '(nothing)'));
  fs.rmSync(work, { recursive: true, force: true });
}

const expected = [0, 0, 0, 1, 2];
if (codes.join() !== expected.join()) {
  console.error(`\ndemo: unexpected exit codes ${codes.join(', ')} (expected ${expected.join(', ')})`);
  process.exitCode = 1;
} else {
  console.log('\nThree events recorded, one refused by the service (exit 1), one bad value caught before sending (exit 2).');
}
