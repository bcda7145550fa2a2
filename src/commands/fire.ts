/** trigger fire <triggerId> <userId> [--value <n>]: its definition (options, help) and its run. */
import { InvalidArgumentError, type Command } from 'commander';
import { eventUrl, type TriggerClient } from '../client/client.js';
import { eventOf, parseTraceparent, prepareEvent, requestHeaders, type PreparedEvent } from '../client/request.js';
import { isTriggerError, UsageError, type StopSignal } from '../errors.js';
import type { Output } from '../output/io.js';
import { curlCommand, formatMs, printable, resultJson, shellQuote, shownId, successLine } from '../output/render.js';
import { spinnerWanted, startSpinner } from '../output/spinner.js';
import type { Settings } from '../settings/resolve.js';
import { maskKey } from '../settings/validate.js';
import { onStopSignals } from '../signals.js';
import { clientFor, commandSettings } from './service.js';
import { addServiceOptions, EXIT_CODES, type Context, type ServiceOptions } from './shared.js';
import { keepWasmOnBaselineTier } from '../startup.js';
import { MAX_ECHO } from '../output/excerpt.js';

export type FireCommandOptions = ServiceOptions & { value?: string };

const EXAMPLES = `
Examples:
  $ trigger fire purchase alice@example.com --value 9.99
  $ trigger fire signup 'user/with?odd#chars'
  $ trigger fire purchase bob --value 12345678901234567890 --json
  $ TRIGGER_API_KEY=... trigger fire purchase bob --base-url https://api.example.com --quiet
  $ trigger fire purchase bob --value 3 --dry-run   # print the curl command, send nothing

${EXIT_CODES}`;

export function command(program: Command, ctx: Context): Command {
  const fireCommand = program
    .command('fire')
    .description('report one event for one user')
    .argument('<triggerId>', 'the trigger id from the dashboard (type Custom)')
    .argument('<userId>', 'the user the event is about (any string)')
    .option('--value <number>', 'a decimal number sent with the event, e.g. 9.99', (text: string, given?: string) => {
      if (given === undefined) return text; // given twice, the last silently won (audit26 #14)
      throw new InvalidArgumentError('a value was given already with --value; give it once');
    })
    .allowExcessArguments(true) // checked below, to suggest --value for `fire purchase alice 9.99`
    .addHelpText('after', EXAMPLES);
  return addServiceOptions(fireCommand).action(async (triggerId: string, userId: string, options: FireCommandOptions, self: Command) => {
    const extra = self.args.slice(2);
    if (extra.length > 0) {
      const looksLikeValue = extra.length === 1 && /^[-+]?(\d|\.\d)/.test(extra[0]!) && options.value === undefined;
      const hint = looksLikeValue ? `to send a value, use: --value ${extra[0]}` : 'quote a user id that has spaces in it';
      const given = extra.map((e) => JSON.stringify(e)).join(' ');
      throw new UsageError(`fire takes a trigger id and a user id; got ${extra.length} more (${given})`, { hint });
    }
    await fire(triggerId, userId, options, ctx);
  });
}

export async function fire(triggerId: string, userId: string, options: FireCommandOptions, { io, env, cwd }: Context): Promise<void> {
  let event: PreparedEvent | undefined;
  try {
    event = prepareEvent({ triggerId, userId, value: options.value });
    const { settings, catalog } = await commandSettings(options, !options.dryRun, { io, env, cwd });
    if (catalog) {
      // Refused here, before anything is sent: a trigger the catalog does not know, or a value its rules forbid.
      const found = catalog.resolve(triggerId);
      // A near miss is a typo, not a trigger to add. The command is pasteable; a long id is named, not printed whole (docs/choices.md).
      const id = triggerId.length > MAX_ECHO ? `<the id, ${triggerId.length.toLocaleString('en-US')} characters>` : shellQuote(triggerId);
      const add = `if it is new, add it: trigger triggers add ${id} --name <name>`;
      if (!found.ok) throw new UsageError(found.message, { hint: found.suggestion ? undefined : add });
      const problem = catalog.valueProblem(found.trigger, event.value?.json);
      if (problem) throw new UsageError(problem, { hint: `see: trigger triggers show ${found.trigger.key}` });
      const deprecation = catalog.deprecation(found.trigger);
      if (deprecation) io.stderr(io.errColors.warn(deprecation));
      if (found.trigger.id !== triggerId) event = eventOf(found.trigger.id, userId, event.value);
    }
    if (options.dryRun) return printDryRun(settings, event, options, io, env);
    const firing = `firing ${shownId(triggerId)} for ${shownId(userId)}`;
    const shown = spinnerWanted(env, io.terminal) && !options.quiet && !options.verbose;
    const spinner = startSpinner(firing, shown, io.errColors.enabled, io.terminal.stream);
    const onRetry = (delayMs: number, reason: string) =>
      spinner.update(`${printable(reason)}: waiting ${formatMs(delayMs)} to retry ${shownId(triggerId)} for ${shownId(userId)}`);
    const controller = new AbortController();
    const removeSignals = onStopSignals((signal) => controller.abort(signal)); // Its reason is the first stop signal, for the exit code.
    let client: TriggerClient | undefined;
    try {
      client = clientFor(settings, options, io, { onRetry, env });
      await client.ready();
      keepWasmOnBaselineTier();
      const result = await client.fire(event, { signal: controller.signal });
      spinner.stop();
      if (options.json) io.json(resultJson(result, io.serverMask));
      else if (!options.quiet) io.stdout(successLine(result, io.outColors, io.serverMask));
    } catch (error) {
      if (isTriggerError(error) && error.kind === 'interrupted') error.signal = controller.signal.reason as StopSignal | undefined;
      throw error;
    } finally {
      spinner.stop();
      removeSignals();
      await client?.destroy();
    }
  } catch (error) {
    // The value as a JSON number, as in every other object; null when it could not be read as one.
    if (isTriggerError(error)) error.event = { triggerId, userId, value: event?.value?.json };
    throw error;
  }
}

/** --dry-run: the request as the client would send it (its JSON, or a curl command), and nothing sent. */
function printDryRun(settings: Settings, event: PreparedEvent, options: FireCommandOptions, io: Output, env: NodeJS.ProcessEnv): void {
  const url = eventUrl(settings.baseUrl, event);
  // The headers the client sends, the key masked as the contract shows a key (the curl command reads it from the environment).
  const headers = requestHeaders(settings.apiKey ? maskKey(settings.apiKey) : '$TRIGGER_API_KEY', parseTraceparent(env.TRACEPARENT));
  const curl = curlCommand(url, event.body, headers);
  if (options.json) io.json(JSON.stringify({ ok: true, dryRun: true, method: 'POST', url, headers, body: event.body, curl }));
  else io.stdout(curl);
  if (settings.apiKeySource !== 'env' && !env.TRIGGER_API_KEY) {
    let where = settings.apiKeySource === undefined ? 'is not set' : `is in profile "${settings.profile}"`;
    if (settings.apiKeySource === 'flag') where = 'was given with --api-key';
    const note = `note: the command reads the key from $TRIGGER_API_KEY, which is not set in this shell (the key ${where}): export it before running it`;
    io.stderr(io.errColors.dim(note));
  }
}
