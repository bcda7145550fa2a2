/**
 * The GitHub Action (action.yml, `runs.using: node24`). The runner runs the committed bundle,
 * action/dist/index.cjs, straight from the checkout: nothing is installed, so the whole CLI is in it
 * (built by scripts/build-action.mjs; CI fails when the bundle differs from this source).
 *
 * It runs `trigger fire` or `trigger batch` in this process with --json, from the INPUT_* variables
 * the runner sets (INPUT_TRIGGER-ID: the input's name upper-cased, hyphens kept). The JSON goes to the
 * step outputs; the step log shows the lines the CLI prints. An input left empty is not a setting: the
 * job's own TRIGGER_* environment stays in effect. The key reaches trigger through the environment,
 * never a command line. Settings stored on the runner (a self-hosted runner's `trigger config`) are
 * never read: only the inputs and the job's environment count.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { statusText } from '../src/client/messages.js';
import { bugMessage, main } from '../src/cli.js';
import { Output } from '../src/output/io.js';
import { failureLine } from '../src/batch/report.js';
import { SHOWN_FAILURES } from '../src/batch/recorder.js';
import { UNKNOWN_MARK } from '../src/batch/rows.js';
import { githubAnnotation, successLine } from '../src/output/render.js';
import { findSettings } from '../src/settings/resolve.js';
import { errnoWords } from '../src/errno.js';
import { isTriggerError } from '../src/errors.js';
import { MIN_KEY_LENGTH } from '../src/settings/validate.js';

type Env = NodeJS.ProcessEnv;

/** An input as the runner passes it; empty when not given. */
export const input = (env: Env, name: string): string => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();

/** Splits `args` as a shell would split words (quotes, backslashes), without running a shell. */
export function splitArgs(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
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
  if (quote) throw new ActionInputError(`args: a ${quote} quote is not closed`, 'close the quote, e.g. args: --timeout "10"');
  if (inWord) words.push(word);
  return words;
}

/** A problem with the step's inputs, worded for the workflow file (exit 2, as a usage error). */
export class ActionInputError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** What to run: the trigger arguments, and the environment with the inputs that were given. */
export interface Plan {
  mode: 'fire' | 'batch';
  argv: string[];
  env: Env;
  /** The settings folder the step runs with: new and empty, made by run() and removed after it. */
  settingsDir: string;
}

/**
 * The hint for a missing key: the input and the secret, never `trigger config` (the Action reads no
 * stored settings, so a key stored on the runner would not be used).
 */
export const NO_KEY_HINT =
  'set the input api-key to a secret (api-key: ${{ secrets.TRIGGER_API_KEY }}), or TRIGGER_API_KEY in the env of the job';

export function plan(env: Env): Plan {
  const extra = splitArgs(input(env, 'args'));
  if (extra.some((word) => word === '--profile' || word.startsWith('--profile='))) {
    throw new ActionInputError(
      'args: --profile names settings stored on the runner, which the Action never reads',
      'give the key and the base URL with the inputs api-key and base-url (or TRIGGER_API_KEY and TRIGGER_BASE_URL in the env of the job)',
    );
  }
  const file = input(env, 'file');
  const triggerId = input(env, 'trigger-id');
  const userId = input(env, 'user-id');
  if (file && (triggerId || userId)) {
    throw new ActionInputError(
      'the inputs file and trigger-id/user-id were both given',
      'give file for a batch, or trigger-id and user-id for one event',
    );
  }
  if (!file && !(triggerId && userId)) {
    throw new ActionInputError(
      triggerId || userId ? `the input ${triggerId ? 'user-id' : 'trigger-id'} is empty` : 'no event to send',
      'give trigger-id and user-id to fire one event, or file to send a batch',
    );
  }
  if (/[*?]/.test(file) && !fs.existsSync(file)) {
    const hint = 'name the folder that holds the files (file: export/ sends every part in it), or one file';
    throw new ActionInputError(`the input file ${file} is a pattern, and the step runs no shell to expand it`, hint);
  }
  if (!file && input(env, 'failed')) throw new ActionInputError('the input failed is for a batch', 'give it with file, or leave it out');
  if (file && input(env, 'value')) {
    throw new ActionInputError('the input value is for one event', "a batch takes each row's value from the file");
  }

  // Only the inputs that were given become settings; an empty one leaves the job's TRIGGER_* in place.
  // Settings stored on the runner (a self-hosted runner's HOME, or a TRIGGER_CONFIG_DIR) are never
  // read: the step runs with a settings folder of its own that holds nothing, and no profile.
  const settingsDir = path.join(env.RUNNER_TEMP || os.tmpdir(), `trigger-action-${randomBytes(8).toString('hex')}`);
  const runEnv: Env = { ...env, GITHUB_ACTIONS: 'true', TRIGGER_CONFIG_DIR: settingsDir };
  delete runEnv.TRIGGER_PROFILE;
  if (input(env, 'api-key')) runEnv.TRIGGER_API_KEY = input(env, 'api-key');
  if (input(env, 'base-url')) runEnv.TRIGGER_BASE_URL = input(env, 'base-url');
  const flagged = (name: string) => extra.some((word) => word === name || word.startsWith(`${name}=`));
  const found = findSettings({ env: runEnv });
  if (!found.key && !flagged('--api-key')) {
    throw new ActionInputError('no API key', NO_KEY_HINT);
  }
  if (!found.url && !flagged('--base-url')) {
    throw new ActionInputError(
      'no base URL',
      'set the input base-url (base-url: https://api.example.com), or TRIGGER_BASE_URL in the env of the job',
    );
  }

  // The inputs that are words go after `--`, so a user id or file name that starts with - is not a flag.
  const argv = file
    ? ['batch', '--json', ...(input(env, 'failed') ? ['--failed', input(env, 'failed')] : []), ...extra, '--', file]
    : ['fire', '--json', ...(input(env, 'value') ? ['--value', input(env, 'value')] : []), ...extra, '--', triggerId, userId];
  return { mode: file ? 'batch' : 'fire', argv, env: runEnv, settingsDir };
}

/** Appends outputs to $GITHUB_OUTPUT, each in a heredoc with a delimiter no value can contain. */
export function writeOutputs(env: Env, outputs: Record<string, string | number>): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `trigger_${randomBytes(8).toString('hex')}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  fs.appendFileSync(file, text);
}

/**
 * writeOutputs, where a GITHUB_OUTPUT that cannot be written (a runner's full disk, a folder) is one warning and the step keeps its own
 * exit code, as a failed stdout write does: what was sent stands (audit24). It was exit 70 with a raw ENOSPC line, and "Re-run failed
 * jobs" then sent the event again. `sent` says what was sent, for a warning that says a re-run would send it again.
 */
function putOutputs(env: Env, outputs: Record<string, string | number>, stderr: NodeJS.WritableStream, sent?: string): void {
  try {
    writeOutputs(env, outputs);
  } catch (error) {
    const lost = `the step's outputs could not be written to GITHUB_OUTPUT (${errnoWords(error)})`;
    const line = sent
      ? `${sent}, but ${lost}; a re-run of this job would send ${sent.startsWith('the event') ? 'it' : 'them'} again`
      : lost;
    stderr.write(`warning: ${line}\n${githubAnnotation(line, 'trigger', { level: 'warning' })}\n`);
  }
}

/** A row's --json error, as the step log needs it. */
type RowError = { kind?: string; message?: string; recorded?: string };

/**
 * What the JSON lines said: the last line (fire), and the rows counted as they stream (batch). A
 * batch's rows that were not accepted are told to `failure` as they come, for the step log.
 */
class Results extends Writable {
  last: Record<string, unknown> | undefined;
  /** The value's digits as sent, which JSON.parse would round. */
  lastValue: string | undefined;
  counts = { accepted: 0, failed: 0, invalid: 0 };
  #partial = '';

  constructor(
    readonly failure?: (line: unknown, error: RowError, requestId: unknown) => void,
    /** A line that is not JSON (--help, --version): for the step log, where it was lost (audit24). */
    readonly text?: (line: string) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    const lines = (this.#partial + chunk.toString()).split('\n');
    this.#partial = lines.pop()!;
    for (const line of lines) this.#line(line);
    done();
  }

  override _final(done: () => void): void {
    if (this.#partial) this.#line(this.#partial);
    done();
  }

  #line(line: string): void {
    let result: Record<string, unknown>;
    try {
      result = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return void this.text?.(line);
    }
    this.last = result;
    // The fields come in a fixed order and a string cannot hold an unescaped quote, so the first
    // `"value":` is the top-level one.
    this.lastValue = /"value":(-?[0-9][0-9.eE+-]*)/.exec(line)?.[1];
    // Only a row has a line: a batch's own error (a missing file) counts no row as failed. A dry run's row was not sent (audit24).
    if (!('line' in result)) return;
    if (result.ok === true) return void (result.dryRun === true || this.counts.accepted++);
    const error = (result.error ?? {}) as RowError;
    if (error.kind === 'invalid') this.counts.invalid++;
    else this.counts.failed++;
    this.failure?.(result.line, error, result.requestId);
  }
}

/** Where a printed command starts in a line ("...; send them with: trigger batch failed.csv --failed ..."), or a rest's test before it. */
const COMMAND = /(?<=: )(?:trigger (?:batch|fire)|(?:gzip|zstd) -t) /;

/**
 * trigger's words in the Action's: what a message says of a flag or a variable the step set from an
 * input names that input, so the fix it points to is in the workflow file, and a hint that would
 * store a setting on the runner names the input and the secret instead (the Action reads no stored
 * settings). Flags given in `args` stay flags (the user typed them there). A command printed for a
 * person (a replay, a --resume) is left exactly as printed, so that it runs as printed.
 */
export function inActionWords(text: string, env: Env): string {
  return text
    .split('\n')
    .map((line) => {
      const at = line.search(COMMAND);
      return at < 0 ? reword(line, env) : reword(line.slice(0, at), env) + line.slice(at);
    })
    .join('\n');
}

function reword(text: string, env: Env): string {
  let words = text
    .replace(
      /set a new one with: trigger config set-key\b/g,
      `set a new one in the secret given to the input api-key (or TRIGGER_API_KEY in the env of the job)`,
    )
    .replace(/\(trigger config set-base-url\)/g, '(the input base-url, or TRIGGER_BASE_URL in the env of the job)')
    .replace(/\btrigger config set-key\b[^;)]*/g, 'the input api-key (a secret)')
    .replace(/\btrigger config set-base-url\b[^;)]*/g, 'the input base-url');
  if (input(env, 'value')) words = words.replace(/(^|[\s(:])--value\b(?! <)/g, '$1the input value');
  if (input(env, 'failed')) words = words.replace(/(^|[\s(:])--failed\b(?! <)/g, '$1the input failed');
  if (input(env, 'base-url')) words = words.replace(/\bfrom TRIGGER_BASE_URL\b/g, 'from the input base-url');
  if (input(env, 'api-key')) words = words.replace(/\bfrom TRIGGER_API_KEY\b/g, 'from the input api-key');
  return words;
}

/** The step log's stderr, passed through, noting whether trigger wrote an annotation and its first error. */
class StepLog extends Writable {
  annotated = false;
  firstError: string | undefined;

  constructor(
    readonly target: NodeJS.WritableStream,
    readonly env: Env,
  ) {
    super();
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    const text = inActionWords(chunk.toString(), this.env);
    if (/^::error/m.test(text)) this.annotated = true;
    this.firstError ??= /^error: (.*)$/m.exec(text)?.[1];
    this.target.write(text, () => done());
  }
}

/**
 * What index.ts says of an error run() threw: trigger's own (a RUNNER_TEMP where no folder can be made) as the CLI says it, with its exit
 * code; anything else as a bug, with where to report it (exit 70). Both were a bare "error: ..." and exit 70 (audit24).
 */
export function reportThrown(error: unknown, stderr: NodeJS.WritableStream): number {
  const known = isTriggerError(error) ? error : undefined;
  const bug = () => bugMessage(error, "the step's inputs (never the key) and its log");
  const message = known ? [known.message, known.hint].filter(Boolean).join(' — ') : bug();
  stderr.write(`error: ${message}\n${githubAnnotation(message)}\n`);
  return known ? known.exitCode : 70;
}

/** Runs the step; returns the exit code. */
export async function run(env: Env = process.env, streams = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  // First, before anything could print it: the runner masks a key only when it came from secrets.* (audit28: vars.*, a step output).
  for (const key of new Set([input(env, 'api-key'), env.TRIGGER_API_KEY?.trim()]))
    // not a short one, refused: it would hide a word (review28b)
    if (key && key.length >= MIN_KEY_LENGTH)
      streams.stdout.write(`::add-mask::${key.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
  let step: Plan;
  try {
    step = plan(env);
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error;
    streams.stderr.write(`error: ${error.message} — ${error.hint}\n`);
    streams.stderr.write(`${githubAnnotation(`${error.message} — ${error.hint}`)}\n`);
    putOutputs(env, { ok: 'false' }, streams.stderr);
    return 2;
  }
  const log = new StepLog(streams.stderr, env);
  // A batch runs with --json (for the outputs), where trigger prints no line for each row that was
  // not accepted: the step log gets the lines the CLI prints without it ("✖ line 4: invalid, ...").
  let shown = 0;
  let hidden = 0;
  const results = new Results(
    (line, error, requestId) => {
      if (step.mode !== 'batch' || error.kind === 'unsent') return; // unsent rows: counted by the summary, as the CLI does
      if (shown === SHOWN_FAILURES) return void hidden++;
      shown++;
      // --json gives the request id and `recorded` apart from the message; the CLI's line says both (fix26c noticed: the Action's did not).
      const message = error.message ?? '';
      const mark = error.recorded === 'unknown' && !message.startsWith(UNKNOWN_MARK) ? `${UNKNOWN_MARK}: ` : '';
      const id = typeof requestId === 'string' ? ` (request id ${requestId})` : '';
      io.stderr(failureLine(typeof line === 'number' || typeof line === 'string' ? line : '?', `${mark}${message}${id}`, io.errColors));
    },
    (line) => streams.stdout.write(`${line}\n`),
  );
  const io = new Output({ stdout: results, stderr: log });
  fs.mkdirSync(step.settingsDir, { recursive: true, mode: 0o700 });
  let code: number;
  try {
    code = await main(['node', 'trigger', ...step.argv], { io, env: step.env });
    await new Promise<void>((resolve) => results.end(resolve));
  } finally {
    fs.rmSync(step.settingsDir, { recursive: true, force: true });
  }
  if (hidden > 0) io.stderr(io.errColors.dim(`  … ${hidden} more not shown`));
  // Every failure gets an annotation, also one trigger does not annotate (a usage error in args).
  if (code !== 0 && !log.annotated && log.firstError) streams.stderr.write(`${githubAnnotation(log.firstError)}\n`);

  if (step.mode === 'batch') {
    const sent = results.counts.accepted > 0 ? "the batch's rows were sent as summarized above" : undefined;
    putOutputs(env, { ok: String(code === 0), ...results.counts }, streams.stderr, sent);
    return code;
  }
  const last = results.last;
  if (last?.dryRun === true && typeof last.curl === 'string') {
    // What `trigger fire --dry-run` prints: the request as a curl command.
    streams.stdout.write(`${io.redact(last.curl)}\n`);
    const key = input(env, 'api-key'); // in the step's environment only: a later step must set it (audit28)
    if (key && env.TRIGGER_API_KEY?.trim() !== key) {
      const where = env.TRIGGER_API_KEY ? 'holds another key in this job' : 'is not set in this job';
      const note = `note: the command reads the key from $TRIGGER_API_KEY, which ${where} (the key came from the input api-key): run it in a step with env: TRIGGER_API_KEY set from the same secret (TRIGGER_API_KEY: \${{ secrets.TRIGGER_API_KEY }})`;
      streams.stderr.write(`${note}\n`);
    }
  } else if (last?.ok === true) {
    const line = successLine(
      {
        ok: true,
        status: last.status as number,
        statusText: statusText(last.status as number),
        triggerId: last.triggerId as string,
        userId: last.userId as string,
        value: results.lastValue,
        attempts: last.attempts as number,
        durationMs: last.durationMs as number,
        requestId: (last.requestId as string | null) ?? undefined,
        response: last.response,
      },
      io.outColors,
      io.serverMask,
    );
    streams.stdout.write(`${io.redact(line)}\n`);
  }
  const outputs = {
    ok: String(last ? last.ok === true : code === 0), // no result: --help or --version, exit 0, "true" as for a batch (audit24)
    status: typeof last?.status === 'number' ? last.status : '',
    'request-id': typeof last?.requestId === 'string' ? last.requestId : '',
  };
  putOutputs(env, outputs, streams.stderr, last?.ok === true && last.dryRun !== true ? 'the event was accepted' : undefined);
  return code;
}
