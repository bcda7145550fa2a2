/**
 * trigger fire <triggerId> <userId> [--value <n>]
 */
import { eventUrl, USER_AGENT, type TriggerClient } from '../client/client.js';
import { eventOf, prepareEvent, type PreparedEvent } from '../client/request.js';
import { isTriggerError, UsageError, type StopSignal } from '../errors.js';
import type { Output } from '../output/io.js';
import { curlCommand, formatMs, printable, resultJson, shellQuote, successLine } from '../output/render.js';
import { spinnerWanted, startSpinner } from '../output/spinner.js';
import { resolveCommand } from '../settings/resolve.js';
import { maskKey } from '../settings/validate.js';
import { onStopSignals } from '../signals.js';
import { clientFor } from './service.js';
import { settingsFlags, type ServiceOptions } from './shared.js';
import { keepWasmOnBaselineTier } from '../startup.js';

export interface FireCommandOptions extends ServiceOptions {
  value?: string;
}

export async function fire(
  triggerId: string,
  userId: string,
  options: FireCommandOptions,
  io: Output,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<void> {
  let event: PreparedEvent | undefined;
  try {
    event = prepareEvent({ triggerId, userId, value: options.value });
    const { settings, catalog } = await resolveCommand({
      flags: settingsFlags(options),
      requireKey: !options.dryRun,
      env,
      cwd,
      catalog: options.catalog,
    });
    io.addSecret(settings.apiKey);
    for (const warning of settings.warnings) io.stderr(io.errColors.warn(warning));
    if (catalog) {
      // Refused here, before anything is sent: a trigger the catalog does not know, or a value its rules forbid.
      const found = catalog.resolve(triggerId);
      if (!found.ok)
        throw new UsageError(found.message, {
          // A near miss is a typo, not a trigger to add.
          hint: found.suggestion ? undefined : `if it is new, add it: trigger triggers add ${shellQuote(triggerId)} --name <name>`,
        });
      const problem = catalog.valueProblem(found.trigger, event.value?.json);
      if (problem) throw new UsageError(problem, { hint: `see: trigger triggers show ${found.trigger.key}` });
      const deprecation = catalog.deprecation(found.trigger);
      if (deprecation) io.stderr(io.errColors.warn(deprecation));
      if (found.trigger.id !== triggerId) event = eventOf(found.trigger.id, userId, event.value);
    }
    if (options.dryRun) {
      const url = eventUrl(settings.baseUrl, event);
      const curl = curlCommand(url, event.body, USER_AGENT);
      if (options.json) {
        const headers = {
          // The key masked, as the contract shows a key; the curl command reads it from the environment.
          authorization: `Bearer ${settings.apiKey ? maskKey(settings.apiKey) : '$TRIGGER_API_KEY'}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': USER_AGENT,
        };
        io.json(JSON.stringify({ ok: true, dryRun: true, method: 'POST', url, headers, body: event.body, curl }));
      } else {
        io.stdout(curl);
      }
      if (settings.apiKeySource !== 'env' && !env.TRIGGER_API_KEY) {
        const where =
          settings.apiKeySource === 'flag'
            ? 'was given with --api-key'
            : settings.apiKey || settings.apiKeySource
              ? `is in profile "${settings.profile}"`
              : 'is not set';
        io.stderr(
          io.errColors.dim(
            `note: the command reads the key from $TRIGGER_API_KEY, which is not set in this shell (the key ${where}): export it before running it`,
          ),
        );
      }
      return;
    }
    const spinner = startSpinner(
      `firing ${printable(triggerId)} for ${printable(userId)}`,
      spinnerWanted(env, io.terminal) && !options.quiet && !options.verbose,
      io.errColors.enabled,
      io.terminal.stream,
    );
    const onRetry = (delayMs: number, reason: string) =>
      spinner.update(`${printable(reason)}: waiting ${formatMs(delayMs)} to retry ${printable(triggerId)} for ${printable(userId)}`);
    const controller = new AbortController();
    let stoppedBy: StopSignal | undefined;
    const removeSignals = onStopSignals((signal) => {
      stoppedBy ??= signal;
      controller.abort();
    });
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
      if (isTriggerError(error) && error.kind === 'interrupted') error.signal = stoppedBy;
      throw error;
    } finally {
      spinner.stop();
      removeSignals();
      await client?.destroy();
    }
  } catch (error) {
    if (isTriggerError(error))
      error.event = {
        triggerId,
        userId,
        // The value as a JSON number, as in every other object; null when it could not be read as one.
        value: event?.value?.json,
      };
    throw error;
  }
}
