/**
 * The command-line program: builds the commands and holds the one catch that turns an error into a
 * message and an exit code. Each command's module is imported only when that command runs.
 */
import { Command, CommanderError, Option } from 'commander';
import type * as ConfigCommands from './commands/config.js';
import { addServiceOptions, type ServiceOptions } from './commands/shared.js';
import { isTriggerError } from './errors.js';
import { Output } from './output/io.js';
import { errorLine, failureJson, githubAnnotation } from './output/render.js';
import { VERSION } from './version.js';

type ConfigModule = typeof ConfigCommands;

const io = new Output();
/** What the running command asked for, so the catch can render its error the same way. */
const mode = { json: process.argv.includes('--json'), verbose: process.argv.includes('--verbose') };

const EXAMPLES_MAIN = `
Examples:
  $ trigger config set-key                    # paste the key at a hidden prompt
  $ trigger config set-base-url https://api.example.com
  $ trigger fire purchase alice@example.com --value 9.99
  $ trigger fire signup "$USER_ID" --json | jq .ok
  $ trigger emulator                          # a local stand-in for the service

Settings come from flags, then TRIGGER_API_KEY / TRIGGER_BASE_URL / TRIGGER_PROFILE, then the profile.
Exit codes: 0 accepted, 1 refused by the service, 2 usage or settings error, 3 no answer, 130 interrupted.`;

const EXAMPLES_FIRE = `
Examples:
  $ trigger fire purchase alice@example.com --value 9.99
  $ trigger fire signup 'user/with?odd#chars'
  $ trigger fire purchase bob --value 12345678901234567890 --json
  $ TRIGGER_API_KEY=... trigger fire purchase bob --base-url https://api.example.com --quiet
  $ trigger fire purchase bob --value 3 --dry-run   # print the curl command, send nothing`;

export function buildProgram(): Command {
  const program = new Command('trigger')
    .description('Report custom-trigger events from scripts, shells and CI')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError()
    .showHelpAfterError('(run with --help for usage and examples)')
    .exitOverride()
    .addHelpText('after', EXAMPLES_MAIN);

  const fire = program
    .command('fire')
    .description('report one event for one user')
    .argument('<triggerId>', 'the trigger id from the dashboard (type Custom)')
    .argument('<userId>', 'the user the event is about (any string)')
    .option('--value <number>', 'a decimal number sent with the event, e.g. 9.99')
    .addHelpText('after', EXAMPLES_FIRE);
  addServiceOptions(fire).action(async (triggerId: string, userId: string, options: ServiceOptions & { value?: string }) => {
    Object.assign(mode, { json: options.json === true, verbose: options.verbose === true });
    await io.useColors();
    const { fire: run } = await import('./commands/fire.js');
    await run(triggerId, userId, options, io);
  });

  const config = program
    .command('config')
    .description('store the API key and base URL, per profile')
    .addHelpText(
      'after',
      `
Examples:
  $ trigger config set-key                        # hidden prompt
  $ printenv SERVICE_KEY | trigger config set-key  # from a pipe
  $ trigger config set-base-url https://api.example.com --profile staging
  $ trigger config get base-url
  $ trigger config list`,
    );
  const profileOption = () => new Option('--profile <name>', 'profile to use (default: "default", or TRIGGER_PROFILE)');
  const configAction =
    <A extends unknown[]>(fn: (mod: ConfigModule, ...args: A) => unknown) =>
    async (...args: A) => {
      await io.useColors();
      await fn(await import('./commands/config.js'), ...args);
    };

  config
    .command('set-key')
    .description('store the API key (argument, piped standard input, or a hidden prompt)')
    .argument('[key]', 'the key; omit it to keep it out of your shell history')
    .addOption(profileOption())
    .action(configAction((m, key: string | undefined, options: { profile?: string }) => m.setKey(key, options, io)));
  config
    .command('set-base-url')
    .description('store the service base URL')
    .argument('<url>', 'e.g. https://api.example.com (a path prefix is kept)')
    .addOption(profileOption())
    .option('--allow-http', 'allow plain http to a host other than loopback')
    .action(configAction((m, url: string, options: { profile?: string; allowHttp?: boolean }) => m.setBaseUrl(url, options, io)));
  config
    .command('get')
    .description('print a stored setting (the key is masked)')
    .argument('[name]', 'api-key or base-url; all when omitted')
    .addOption(profileOption())
    .option('--json', 'print JSON')
    .action(configAction((m, name: string | undefined, options: { profile?: string; json?: boolean }) => m.get(name, options, io)));
  config
    .command('list')
    .description('print every profile (keys masked)')
    .option('--json', 'print JSON')
    .action(configAction((m, options: { json?: boolean }) => m.list(options, io)));
  config
    .command('unset')
    .description('remove a stored setting')
    .argument('<name>', 'api-key or base-url')
    .addOption(profileOption())
    .action(configAction((m, name: string, options: { profile?: string }) => m.unset(name, options, io)));
  config
    .command('path')
    .description('print the config file path')
    .action(configAction((m) => m.path(io)));

  return program;
}

/** Turns anything thrown into output and an exit code. The only place the process outcome is decided. */
export function report(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // commander has already printed its message; usage errors are exit 2, not commander's 1.
    if (mode.json) io.stdout(JSON.stringify({ ok: false, error: { kind: 'usage', exitCode: 2, message: error.message.replace(/^error: /, '') } }));
    return 2;
  }
  if (!isTriggerError(error)) {
    io.stderr(`error: unexpected failure: ${(error as Error)?.message ?? String(error)}`);
    if (mode.verbose && error instanceof Error && error.stack) io.stderr(error.stack);
    return 1;
  }
  io.stderr(errorLine(error, io.err));
  if (mode.json) io.stdout(failureJson(error));
  if (process.env.GITHUB_ACTIONS === 'true') {
    io.stderr(githubAnnotation(error.hint ? `${error.message} — ${error.hint}` : error.message));
  }
  return error.exitCode;
}

export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = report(error);
  }
}
