/**
 * The GitHub Action's one step: runs `trigger fire` or `trigger batch` with --json from the inputs
 * (INPUT_* variables; the key arrives as TRIGGER_API_KEY, never on a command line), writes the step
 * outputs to $GITHUB_OUTPUT, and exits with trigger's exit code, so a refused event fails the step
 * with its outputs set. A batch's NDJSON is counted as it streams, never held.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'trigger.cjs');
const input = (name) => (process.env[`INPUT_${name}`] ?? '').trim();

/** Splits `args` as a shell would split words (quotes, backslashes), without running a shell. */
export function splitArgs(text) {
  const words = [];
  let word = '';
  let quote;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`args: a ${quote} quote is not closed`);
  if (inWord) words.push(word);
  return words;
}

function writeOutputs(outputs) {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `trigger_${randomBytes(8).toString('hex')}`;
    text += `${name}<<${delimiter}\n${value ?? ''}\n${delimiter}\n`;
  }
  fs.appendFileSync(file, text);
}

function fail(message) {
  process.stderr.write(`::error title=trigger::${message}\n`);
  writeOutputs({ ok: 'false' });
  process.exit(2);
}

let extra;
try {
  extra = splitArgs(input('ARGS'));
} catch (error) {
  fail(error.message);
}
const file = input('FILE');
const fire = input('TRIGGER_ID') !== '' || input('USER_ID') !== '';
if (file && fire) fail('give either file (a batch) or trigger-id and user-id (one event), not both');
if (!file && !(input('TRIGGER_ID') && input('USER_ID'))) fail('give trigger-id and user-id to fire one event, or file to send a batch');

const args = file
  ? ['batch', file, '--json', ...(input('FAILED') ? ['--failed', input('FAILED')] : []), ...extra]
  : ['fire', input('TRIGGER_ID'), input('USER_ID'), '--json', ...(input('VALUE') ? ['--value', input('VALUE')] : []), ...extra];

const child = spawn(process.execPath, [bin, ...args], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, GITHUB_ACTIONS: 'true' },
});
// A runner cancelling the job signals this process; pass it on so the batch keeps its unsent rows.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));

const counts = { accepted: 0, failed: 0, invalid: 0 };
let last;
const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
lines.on('line', (line) => {
  let result;
  try {
    result = JSON.parse(line);
  } catch {
    return;
  }
  last = result;
  if (!file) return;
  if (result.ok) counts.accepted++;
  else if (result.error?.kind === 'invalid') counts.invalid++;
  else counts.failed++;
});
const code = await new Promise((resolve) => child.on('close', (status, signal) => resolve(status ?? (signal ? 128 : 1))));
await new Promise((resolve) => (lines.closed ? resolve() : lines.once('close', resolve)));

if (file) {
  writeOutputs({ ok: String(code === 0), accepted: counts.accepted, failed: counts.failed, invalid: counts.invalid });
} else {
  writeOutputs({ ok: String(last?.ok === true), status: last?.status ?? '', 'request-id': last?.requestId ?? '' });
}
process.exitCode = code;
