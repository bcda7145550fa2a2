/**
 * The command-line program: builds the commands and holds the one catch that turns an error into a
 * message and an exit code. Each command's module is imported only when that command runs.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import type * as ConfigCommands from './commands/config.js';
import type * as TriggersCommands from './commands/triggers.js';
import * as parse from './commands/parsers.js';
import { addServiceOptions, type ServiceOptions } from './commands/shared.js';
import { exitCodeFor, isTriggerError, UsageError } from './errors.js';
import { Output } from './output/io.js';
import { errorLine, failureJson, githubAnnotation, shownMessage } from './output/render.js';
import { usageWords } from './output/usage.js';
import { cliEnvironment } from './settings/validate.js';
import { VERSION } from './version.js';
import { FORMATS, IMPORT_FORMATS } from './batch/formats.js';
import { DEFAULT_FAIL_STATUS, DEFAULT_PORT } from './emulator/defaults.js';
// For src/startup.ts, which sets back the V8 flags a command changed before it keeps the code cache.
export { restoreV8Flags } from './startup.js';

import type { BatchCommandOptions } from './commands/batch.js';
import type { EmulatorCommandOptions } from './commands/emulator.js';
import type { StatusOptions } from './commands/status.js';

type ConfigModule = typeof ConfigCommands;

/** What the running command asked for, so the catch can render its error the same way. */
export interface Mode {
  json: boolean;
  verbose: boolean;
}

/** What the program runs with: where it writes, and the environment it reads. */
export interface Context {
  io: Output;
  env: NodeJS.ProcessEnv;
  /** The working folder, where the trigger catalog is looked for (tests pass their own instead of chdir). */
  cwd: string;
}

/** The commands buildProgram adds, by name. */
const COMMANDS = new Set(['fire', 'batch', 'config', 'status', 'emulator', 'triggers', 'completion']);

/** What a command that calls the service can exit with (fire; the batch has its own line). */
const EXIT_CODES = `Exit codes: 0 accepted, 1 refused by the service (4xx, "success": false), 2 usage or settings error
(nothing sent), 3 no definitive answer (--json error.recorded says "no" or "unknown"), 70 a bug in
trigger, 130 interrupted (143 SIGTERM, 129 SIGHUP).`;

const EXAMPLES_MAIN = `
Examples:
  $ trigger config set-key                    # paste the key at a hidden prompt
  $ trigger config set-base-url https://api.example.com
  $ trigger fire purchase alice@example.com --value 9.99
  $ trigger fire signup "$USER_ID" --json | jq .ok
  $ trigger batch events.csv --failed failed.csv   # many events from a file
  $ trigger emulator                          # a local stand-in for the service

Settings come from flags, then TRIGGER_API_KEY / TRIGGER_BASE_URL / TRIGGER_PROFILE, then the profile.
${EXIT_CODES}`;

const EXAMPLES_FIRE = `
Examples:
  $ trigger fire purchase alice@example.com --value 9.99
  $ trigger fire signup 'user/with?odd#chars'
  $ trigger fire purchase bob --value 12345678901234567890 --json
  $ TRIGGER_API_KEY=... trigger fire purchase bob --base-url https://api.example.com --quiet
  $ trigger fire purchase bob --value 3 --dry-run   # print the curl command, send nothing

${EXIT_CODES}`;

export function buildProgram({ io, env, cwd }: Context, mode: Mode = { json: false, verbose: false }, only?: string | undefined): Command {
  // Every run builds the tree it parses with: a `trigger fire` needs only fire's (start-up is most of
  // what a fire costs), while help, suggestions and completion need all of it (see main).
  const wanted = (name: string) => only === undefined || only === name;
  const program = new Command('trigger')
    .description('Report custom-trigger events from scripts, shells and CI')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError()
    .showHelpAfterError('(run with --help for usage and examples)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.write(text),
      writeErr: (text) => io.writeErr(text),
      outputError: (text, write) => write(usageWords(text)),
    })
    .addHelpText('after', EXAMPLES_MAIN)
    .hook('preAction', (_program, action) => {
      const options = action.opts<{ json?: boolean; verbose?: boolean }>();
      mode.json = options.json === true;
      mode.verbose = options.verbose === true;
    });

  if (wanted('fire')) {
    const fire = program
      .command('fire')
      .description('report one event for one user')
      .argument('<triggerId>', 'the trigger id from the dashboard (type Custom)')
      .argument('<userId>', 'the user the event is about (any string)')
      .option('--value <number>', 'a decimal number sent with the event, e.g. 9.99')
      .allowExcessArguments(true) // checked below, to suggest --value for `fire purchase alice 9.99`
      .addHelpText('after', EXAMPLES_FIRE);
    addServiceOptions(fire).action(
      async (triggerId: string, userId: string, options: ServiceOptions & { value?: string }, command: Command) => {
        const extra = command.args.slice(2);
        if (extra.length > 0) {
          const looksLikeValue = extra.length === 1 && /^[-+]?(\d|\.\d)/.test(extra[0]!) && options.value === undefined;
          throw new UsageError(
            `fire takes a trigger id and a user id; got ${extra.length} more (${extra.map((e) => JSON.stringify(e)).join(' ')})`,
            {
              hint: looksLikeValue ? `to send a value, use: --value ${extra[0]}` : 'quote a user id that has spaces in it',
            },
          );
        }
        await io.useColors(env);
        const { fire: run } = await import('./commands/fire.js');
        await run(triggerId, userId, options, io, env, cwd);
      },
    );
  }
  if (wanted('batch')) {
    const batch = program
      .command('batch')
      .description('report many events from a CSV or NDJSON file, or a list of user ids')
      .argument('<file...>', 'the input files or folders (a folder: its files in name order), or - for standard input')
      .addOption(new Option('--format <format>', 'input format (default: from the extension, else detected)').choices(FORMATS))
      .option('--trigger <id>', 'the trigger for rows that have none (and for every row with --format lines)')
      .option('--columns <map>', "the file's own column names: triggerId=<name>,userId=<name>,value=<name>")
      .addOption(
        new Option('--concurrency <n|auto>', "requests in flight at once; auto finds the service's pace")
          .argParser(parse.concurrency)
          .default('auto'),
      )
      .addOption(
        new Option('--max-concurrency <n>', 'with --concurrency auto, never more than this many at once (default: 64)').argParser(
          parse.wholeNumber(1, 256),
        ),
      )
      .addOption(new Option('--rate <n>', 'at most this many requests per second').argParser(parse.rate))
      .option(
        '--failed <file>',
        'write rows that were not accepted here, with the reason and line number (same format, to send again; default: trigger-failed-<date>-<time>.csv in this folder)',
      )
      .option('--journal <file>', "record each row's progress here, so that a run that was killed can be carried on with --resume")
      .option('--resume', 'carry on the batch the --journal records: rows already accepted or kept are not sent again')
      .option('--retry-unknown', 'send rows whose outcome an earlier run could not know (they may have been recorded)')
      .addOption(
        new Option(
          '--shard <i>/<n>',
          'send only shard i of n (split by a stable hash of the user id), for n jobs sharing one file',
        ).argParser(parse.shard),
      )
      .addHelpText(
        'after',
        `
Input: CSV with a header (triggerId,userId,value in any order; value optional), NDJSON
({"triggerId","userId","value"} per line), or --format lines (one userId per line, with --trigger).

Examples:
  $ trigger batch events.csv --failed failed.csv
  $ trigger batch failed.csv --failed failed-again.csv          # send the failed rows again
  $ trigger batch events.ndjson --concurrency 16 --rate 200 --json > results.ndjson
  $ cut -d, -f1 users.csv | trigger batch - --trigger welcome --format lines
  $ trigger batch events.csv --dry-run                           # check every row, send nothing
  $ trigger batch big.csv --journal big.journal --resume --failed failed.csv   # survives kill -9; run again to carry on

Exit codes: 0 every row accepted, 1 any row not accepted, 2 unreadable input or bad options, or a
journal or failed file another batch is using, 70 a bug in trigger, 130 interrupted by Ctrl-C, 143 by
SIGTERM, 129 by SIGHUP (rows not accepted are kept in the failed file; rows of unknown outcome are
marked so, and a replay skips them unless --retry-unknown).`,
      );
    addServiceOptions(batch);
    const batchDryRun = batch.options.find((o) => o.long === '--dry-run');
    if (batchDryRun) batchDryRun.description = 'check every row and send nothing (prints no curl commands)';
    batch.action(async (source: string[], options: BatchCommandOptions) => {
      await io.useColors(env);
      const { batch: run } = await import('./commands/batch.js');
      await run(source, options, io, env, cwd);
    });
  }
  if (wanted('config')) {
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
  $ trigger config use staging                     # make a profile the active one
  $ trigger config list

The key goes to the system keychain where one answers (and CI is not set); else, or with
--insecure-storage, to the config file (mode 0600). \`trigger status\` shows what is in effect.`,
      );
    const profileOption = () => new Option('--profile <name>', 'profile to use (default: the active one, or TRIGGER_PROFILE)');
    const configAction =
      <A extends unknown[]>(fn: (mod: ConfigModule, ...args: A) => unknown) =>
      async (...args: A) => {
        await io.useColors(env);
        await fn(await import('./commands/config.js'), ...args);
      };

    config
      .command('set-key')
      .description('store the API key (argument, piped standard input, or a hidden prompt)')
      .argument('[key]', 'the key; omit it to keep it out of your shell history')
      .addOption(profileOption())
      .option('--insecure-storage', 'store the key in the config file (mode 0600) even where a system keychain answers')
      .action(
        configAction((m, key: string | undefined, options: { profile?: string; insecureStorage?: boolean }) =>
          m.setKey(key, options, io, env),
        ),
      );
    config
      .command('set-base-url')
      .description('store the service base URL')
      .argument('<url>', 'e.g. https://api.example.com (a path prefix is kept)')
      .addOption(profileOption())
      .option('--allow-http', 'allow plain http to a host other than loopback')
      .action(configAction((m, url: string, options: { profile?: string; allowHttp?: boolean }) => m.setBaseUrl(url, options, io, env)));
    config
      .command('get')
      .description('print a stored setting (the key is masked)')
      .argument('[name]', 'api-key or base-url; all when omitted')
      .addOption(profileOption())
      .option('--json', 'print JSON')
      .action(configAction((m, name: string | undefined, options: { profile?: string; json?: boolean }) => m.get(name, options, io, env)));
    config
      .command('list')
      .description('print every profile (keys masked)')
      .option('--json', 'print JSON')
      .option('--names', 'print only the profile names, one a line (for scripts and shell completion)')
      .action(configAction((m, options: { json?: boolean; names?: boolean }) => m.list(options, io, env)));
    config
      .command('unset')
      .description('remove a stored setting')
      .argument('<name>', 'api-key or base-url')
      .addOption(profileOption())
      .action(configAction((m, name: string, options: { profile?: string }) => m.unset(name, options, io, env)));
    config
      .command('use')
      .description('make a profile the active one (--profile and TRIGGER_PROFILE still override it)')
      .argument('<profile>', 'a profile in the config file')
      .action(configAction((m, name: string) => m.use(name, io, env)));
    config
      .command('delete')
      .description('delete a profile, and its key from the system keychain')
      .argument('<profile>', 'a profile in the config file')
      .action(configAction((m, name: string) => m.remove(name, io, env)));
    config
      .command('path')
      .description('print the config file path')
      .option('--json', 'print JSON')
      .action(configAction((m, options: { json?: boolean }) => m.path(options, io, env)));
  }
  if (wanted('status')) {
    program
      .command('status')
      .description('show the settings a command would use now, and where each came from (sends nothing)')
      .option('--api-key <key>', 'API key, as the commands that send take it')
      .option('--base-url <url>', 'service base URL')
      .option('--profile <name>', 'settings profile')
      .option('--allow-http', 'allow plain http to a host other than loopback')
      .option('--json', 'print one JSON object')
      .option('--catalog <file>', 'the trigger catalog to show (default: TRIGGER_CATALOG, else triggers.json here or in a parent folder)')
      .option('--no-catalog', 'use no trigger catalog')
      .addHelpText(
        'after',
        `
Examples:
  $ trigger status
  $ trigger status --json | jq .apiKey.source

Exit codes: 0 a key and a base URL are set, 2 something is missing or invalid (the fix is printed).`,
      )
      .action(async (options: StatusOptions) => {
        await io.useColors(env);
        const { status } = await import('./commands/status.js');
        await status(options, io, env, cwd);
      });
  }
  if (wanted('emulator')) {
    const emulator = program
      .command('emulator')
      .description('run a local stand-in for the service, for trying trigger and testing scripts offline')
      .addOption(
        new Option('--port <n>', 'port to listen on (0: any free port)').argParser(parse.wholeNumber(0, 65_535)).default(DEFAULT_PORT),
      )
      .option('--host <addr>', 'address to listen on', '127.0.0.1')
      .option(
        '--key <key>',
        'API key clients must send (default: TRIGGER_API_KEY, else a generated one); a flag shows in ps, TRIGGER_API_KEY does not',
      )
      .option('--trigger <id...>', 'known trigger ids; any other answers 404')
      .option(
        '--catalog <file>',
        'without --trigger: know the triggers of this catalog (default: triggers.json here or in a parent folder)',
      )
      .option('--no-catalog', 'without --trigger: accept any trigger, even beside a catalog')
      .option('--log <file>', 'append each recorded event to this file as NDJSON')
      .addOption(new Option('--fail-rate <0..1>', 'share of requests to fail on purpose').argParser(parse.fraction))
      .addOption(
        new Option('--fail-status <code>', 'status of those failures (429 and 503 add Retry-After: 1)')
          .argParser(parse.wholeNumber(400, 599))
          .default(DEFAULT_FAIL_STATUS),
      )
      .addOption(new Option('--latency <ms>', 'delay every answer by this many milliseconds').argParser(parse.wholeNumber(0, 600_000)))
      .addOption(
        new Option('--capacity <n>', 'take at most n requests per second; answer 429 with Retry-After beyond').argParser(parse.rate),
      )
      .addOption(
        new Option('--max-in-flight <n>', 'work on at most n requests at once; answer 503 with Retry-After beyond').argParser(
          parse.wholeNumber(1, 1_000_000),
        ),
      )
      .addHelpText(
        'after',
        `
Examples:
  $ trigger emulator                               # prints the two export lines to use it
  $ trigger emulator --port 0 --trigger purchase signup --log events.ndjson
  $ trigger emulator --fail-rate 0.3 --fail-status 429 --latency 200   # test your retries
  $ trigger emulator --latency 50 --capacity 400 --max-in-flight 12     # rehearse a backfill`,
      );
    emulator.action(async (options: EmulatorCommandOptions) => {
      await io.useColors(env);
      const { emulator: run } = await import('./commands/emulator.js');
      await run(options, io, env, cwd);
    });
  }
  if (wanted('triggers')) {
    const triggers = program
      .command('triggers')
      .description('the trigger catalog (triggers.json): which triggers exist, their ids per profile and value rules')
      .addHelpText(
        'after',
        `
Examples:
  $ trigger triggers add purchase --name "Purchase completed" --value required --min 0
  $ trigger triggers edit signup --profile staging --id signup-test   # staging's account uses another id
  $ trigger triggers list
  $ trigger triggers check events.csv          # in CI, before a backfill: every bad row as file:line
  $ trigger triggers import old/*.csv          # a catalog from the batch files you already have

The catalog is triggers.json in this folder or a parent (or --catalog <file>, or TRIGGER_CATALOG).
With one, fire and batch refuse a trigger it does not know before sending anything.`,
      );
    const triggersAction =
      <A extends unknown[]>(
        fn: (mod: typeof TriggersCommands, ctx: { io: Output; env: NodeJS.ProcessEnv; cwd: string }, ...args: A) => unknown,
      ) =>
      async (...args: A) => {
        await io.useColors(env);
        await fn(await import('./commands/triggers.js'), { io, env, cwd }, ...args);
      };
    const catalogOption = () =>
      new Option('--catalog <file>', 'the catalog file (default: TRIGGER_CATALOG, else triggers.json here or in a parent folder)');
    const activeProfileOption = () => new Option('--profile <name>', 'show the ids of this profile (default: the active one)');
    const entryOptions = (command: Command) =>
      command
        .option('--name <text>', 'the name the dashboard shows')
        .addOption(new Option('--value <rule>', 'whether events carry a value').choices(['required', 'optional', 'none']))
        .option('--min <number>', 'the smallest value allowed')
        .option('--max <number>', 'the largest value allowed')
        .option('--description <text>', 'free text')
        .option('--deprecated <reason>', 'mark it deprecated (it still fires, with a warning), e.g. "use promo-2026"')
        .addOption(catalogOption());
    triggers
      .command('list')
      .description('list the triggers, with their ids in the active profile')
      .option('--json', 'print one JSON object')
      .addOption(activeProfileOption())
      .addOption(catalogOption())
      .action(triggersAction((m, ctx, options: TriggersCommands.CatalogFlag & { json?: boolean }) => m.list(options, ctx)));
    triggers
      .command('show')
      .description('show one trigger')
      .argument('<id>', 'its key or its id in the active profile')
      .option('--json', 'print one JSON object')
      .addOption(activeProfileOption())
      .addOption(catalogOption())
      .action(triggersAction((m, ctx, id: string, options: TriggersCommands.CatalogFlag & { json?: boolean }) => m.show(id, options, ctx)));
    entryOptions(
      triggers
        .command('add')
        .description('add a trigger (creates triggers.json here when there is none)')
        .argument('<id>', 'the id as the dashboard shows it'),
    ).action(triggersAction((m, ctx, id: string, options: TriggersCommands.EntryOptions) => m.add(id, options, ctx)));
    entryOptions(triggers.command('edit').description('change a trigger').argument('<id>', 'its key or its id in the active profile'))
      .option('--profile <name>', 'with --id: the profile whose account uses another id')
      .option('--id <id>', "with --profile: that profile's id for this trigger")
      .option('--clear <field...>', 'remove fields: description, min, max, deprecated')
      .action(triggersAction((m, ctx, id: string, options: TriggersCommands.EntryOptions) => m.edit(id, options, ctx)));
    triggers
      .command('remove')
      .description('remove a trigger from the catalog')
      .argument('<id>', 'its key or its id in the active profile')
      .addOption(catalogOption())
      .action(triggersAction((m, ctx, id: string, options: TriggersCommands.CatalogFlag) => m.remove(id, options, ctx)));
    triggers
      .command('check')
      .description('check the catalog and every row of batch files, sending nothing (exit 1 if any problem)')
      .argument('[file...]', 'batch files (CSV or NDJSON), read as trigger batch reads them; - for standard input')
      .addOption(new Option('--format <format>', 'input format (default: from the extension)').choices(FORMATS))
      .option('--trigger <id>', 'the trigger for rows that have none')
      .option('--columns <map>', "the files' own column names: triggerId=<name>,userId=<name>,value=<name>")
      .option('--json', 'print one JSON object')
      .addOption(new Option('--profile <name>', 'check against the ids of this profile (default: the active one)'))
      .addOption(catalogOption())
      .action(triggersAction((m, ctx, files: string[], options: TriggersCommands.CheckOptions) => m.check(files, options, ctx)));
    triggers
      .command('import')
      .description('add the distinct triggers of existing batch files to the catalog')
      .argument('<file...>', 'batch files (CSV or NDJSON)')
      .addOption(new Option('--format <format>', 'input format (default: from the extension)').choices(IMPORT_FORMATS))
      .option('--columns <map>', "the files' own column names: triggerId=<name>,userId=<name>,value=<name>")
      .addOption(catalogOption())
      .action(triggersAction((m, ctx, files: string[], options: TriggersCommands.ImportOptions) => m.importFiles(files, options, ctx)));
  }
  if (wanted('completion')) {
    program
      .command('completion')
      .description('print a shell completion script')
      .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
      .addHelpText(
        'after',
        `
Examples:
  $ source <(trigger completion bash)                       # add to ~/.bashrc
  $ source <(trigger completion zsh)                        # add to ~/.zshrc, after compinit
  $ trigger completion fish > ~/.config/fish/completions/trigger.fish

The script asks trigger on each Tab (commands, options, profiles, the catalog's triggers), so it
stays right when trigger is upgraded.`,
      )
      .action(async (shell: 'bash' | 'zsh' | 'fish') => {
        const { completionScript } = await import('./commands/completion.js');
        io.write(completionScript(shell));
      });
  }
  return program;
}

/** Turns anything thrown into output and an exit code. The only place the process outcome is decided. */
export function report(error: unknown, io: Output, mode: Mode, env: NodeJS.ProcessEnv = process.env): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // commander has already printed its message; usage errors are exit 2, not commander's 1.
    if (mode.json)
      io.json(
        JSON.stringify({ ok: false, error: { kind: 'usage', exitCode: 2, message: usageWords(error.message).replace(/^error: /, '') } }),
      );
    return 2;
  }
  if (!isTriggerError(error)) {
    // Not 1: scripts read 1 as "the service refused", and nothing here says it did.
    io.stderr(
      `error: this is a bug in trigger ${VERSION} (node ${process.versions.node}): ${(error as Error)?.message ?? String(error)}; please report it on the project's issue tracker with the command you ran${mode.verbose ? ' and this output' : ' and its output with --verbose'}`,
    );
    if (mode.verbose && error instanceof Error && error.stack) io.stderr(error.stack);
    if (mode.json)
      io.json(
        JSON.stringify({
          ok: false,
          error: { kind: 'bug', exitCode: exitCodeFor('bug'), message: (error as Error)?.message ?? String(error) },
        }),
      );
    return exitCodeFor('bug');
  }
  if (error.reported) return error.exitCode;
  io.stderr(errorLine(error, io.errColors, io.serverMask));
  if (mode.json) io.json(failureJson(error, io.serverMask));
  if (env.GITHUB_ACTIONS === 'true') {
    const message = shownMessage(error, io.serverMask);
    io.stderr(githubAnnotation(error.hint ? `${message} — ${error.hint}` : message));
  }
  return error.exitCode;
}

/**
 * Runs the program on argv and returns the exit code. `io` and `env` default to the process's own;
 * tests pass their own to run a command in-process (test/commands/).
 */
export async function main(argv: string[] = process.argv, context: Partial<Context> = {}): Promise<number> {
  const io = context.io ?? new Output();
  const env = context.env ?? cliEnvironment(process.env);
  // Until the options are parsed (a preAction hook takes the mode from them), a usage error can only
  // be rendered by a look at the words typed.
  const mode: Mode = { json: argv.includes('--json'), verbose: argv.includes('--verbose') };
  try {
    // A known command as the first word builds only its own tree; anything else (help, a typo to
    // suggest for, options first, completion) builds all of it.
    const first = argv[2];
    const only = first !== undefined && COMMANDS.has(first) ? first : undefined;
    const program = buildProgram({ io, env, cwd: context.cwd ?? process.cwd() }, mode, only);
    if (argv.length <= 2) {
      // No command at all: the help is what was asked for (as gh does), on stdout, exit 0.
      io.write(program.helpInformation());
      return 0;
    }
    if (argv[2] === '__complete') {
      // Asked by the shell completion scripts on every Tab (see commands/complete.ts); hidden from help.
      const { runComplete } = await import('./commands/complete.js');
      return runComplete(program, argv.slice(3), io, env, context.cwd);
    }
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    return report(error, io, mode, env);
  }
}
