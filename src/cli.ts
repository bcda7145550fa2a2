/** The program: the commands (each imported only when it runs) and the one catch that turns an error into a message and an exit code. */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES, type Context } from './commands/shared.js';
import { isTriggerError, TriggerError, UsageError } from './errors.js';
import { Output } from './output/io.js';
import { errorLine, failureJson, githubAnnotation, shownMessage } from './output/render.js';
import { usageWords } from './output/usage.js';
import { cliEnvironment, MIN_KEY_LENGTH } from './settings/validate.js';
import { VERSION } from './version.js';
import { tryOr } from './try-or.js';
export { restoreV8Flags } from './startup.js'; // For startup.ts: it sets back the V8 flags a command changed before keeping the code cache.

/** What the running command asked for, so the catch can render its error the same way. */
export type Mode = { json: boolean; verbose: boolean };

/** The commands in help's order; only the one invoked is imported (start-up is most of what a fire costs), all for help and completion. */
const COMMANDS: Record<string, () => Promise<{ command: (program: Command, context: Context) => Command }>> = {
  fire: () => import('./commands/fire.js'),
  batch: () => import('./commands/batch.js'),
  config: () => import('./commands/config.js'),
  status: () => import('./commands/status.js'),
  emulator: () => import('./commands/emulator.js'),
  triggers: () => import('./commands/triggers.js'),
  completion: () => import('./commands/completion.js'),
};

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

/** The program, with every command or `only` the one named; its preAction hook keeps `mode` up to date. */
async function buildProgram(context: Context, mode: Mode, only: string | undefined): Promise<Command> {
  const { io, env } = context;
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
    .hook('preAction', async (_program, action) => {
      const options = action.opts<{ json?: boolean; verbose?: boolean }>();
      mode.json = options.json === true;
      mode.verbose = options.verbose === true;
      await io.useColors(env);
    });
  for (const [name, load] of Object.entries(COMMANDS)) if (only === undefined || only === name) (await load()).command(program, context);
  return program;
}

/** Anything thrown, as the TriggerError it stands for: commander's usage errors and bugs included. */
function asTriggerError(error: unknown, mode: Mode): TriggerError {
  if (isTriggerError(error)) return error;
  // Usage errors are exit 2, not commander's 1; help shown for want of a subcommand ("(outputHelp)" is commander's, not words).
  if (error instanceof CommanderError && error.code === 'commander.help')
    return new UsageError('a command is needed: the help above lists them');
  if (error instanceof CommanderError) return new UsageError(usageWords(error.message).replace(/^error: /, ''));
  const give = `the command you ran and ${mode.verbose ? 'this output' : 'its output with --verbose'}`;
  return new TriggerError('bug', bugMessage(error, give)); // Not 1: scripts read 1 as "the service refused", and nothing here says it did.
}

/** An error trigger did not expect (exit 70), said as a bug, with where to report it and what to `give` (package.json has no tracker URL). */
export const bugMessage = (error: unknown, give: string): string =>
  `this is a bug in trigger ${VERSION} (node ${process.versions.node}): ${(error as Error)?.message ?? String(error)}; please report it on the issue tracker of the trigger-cli package, with ${give}`;

/** Turns anything thrown into output and an exit code. The only place the process outcome is decided. */
export function report(error: unknown, io: Output, mode: Mode, env: NodeJS.ProcessEnv = process.env): number {
  if (error instanceof CommanderError && error.exitCode === 0) return 0;
  const failure = asTriggerError(error, mode);
  if (failure.reported) return failure.exitCode;
  // commander has printed its own usage error, but no words with the help it shows for want of a command.
  if (!(error instanceof CommanderError) || error.code === 'commander.help') io.stderr(errorLine(failure, io.errColors, io.serverMask));
  if (failure.kind === 'bug' && mode.verbose && error instanceof Error && error.stack) io.stderr(error.stack);
  if (mode.json) io.json(failureJson(failure, io.serverMask));
  if (env.GITHUB_ACTIONS === 'true')
    io.stderr(githubAnnotation([shownMessage(failure, io.serverMask), failure.hint].filter(Boolean).join(' — ')));
  return failure.exitCode;
}

/** Commands whose whole result is what they print: `trigger completion fish > file && ...` on a full disk is no success (cli20). */
const PRINT_ONLY = new Set(['completion', 'status', 'config path', 'config get', 'config list', 'triggers list', 'triggers show']);

/** Runs the program on argv; returns the exit code. The context defaults to the process's; tests pass theirs (test/commands/). */
export async function main(argv: string[] = process.argv, context: Partial<Context> = {}): Promise<number> {
  const io = context.io ?? new Output();
  const env = context.env ?? cliEnvironment(process.env);
  // The keys this run holds (emulator's --key too, a pasted em dash's flag), masked from the first line: usage errors echo a misplaced key
  // before settings resolve. Not a short one, refused where it is used: `dev` masked /dev/null in `completion bash` (review28b).
  const flag = /^(?:--|[\u2013\u2014]-?)(?:api-)?key(?:=(.*))?$/s; // --api-key K, --api-key=K, —api-key K, --api-key= K
  const held = argv.map((word, i) => {
    const before = flag.exec(argv[i - 1] ?? '');
    return before && !before[1] ? word : flag.exec(word)?.[1];
  });
  for (const key of [env.TRIGGER_API_KEY, ...held]) if (key && key.trim().length >= MIN_KEY_LENGTH) io.addSecret(key);
  // Until the options are parsed (a preAction hook takes the mode from them), a usage error can only be rendered from the words typed.
  const mode: Mode = { json: argv.includes('--json'), verbose: argv.includes('--verbose') };
  try {
    // No command is asking for the help (as gh: stdout, exit 0); `trigger help frie` is `trigger frie`, not a help with no word of the typo.
    if (argv.length <= 2) argv = [...argv, 'help'];
    else if (argv[2] === 'help' && /^\w/.test(argv[3] ?? '') && !Object.hasOwn(COMMANDS, argv[3]!)) argv = argv.toSpliced(2, 1);
    // A known command first builds only its own tree; anything else (help, a typo to suggest for, options first, completion) builds all.
    const only = Object.hasOwn(COMMANDS, argv[2] ?? '') ? argv[2] : undefined;
    // process.cwd() throws (uv_cwd) in a folder removed since the shell went there (review28 F7): refused where a command reads it.
    const cwd = context.cwd ?? tryOr(() => process.cwd());
    const inFolder =
      ['fire', 'batch', 'triggers', 'status', 'emulator'].includes(argv[2] ?? '') && !argv.some((word) => /^(-h|--help)$/.test(word));
    if (cwd === undefined && inFolder) throw new UsageError('the current folder was removed', { hint: 'cd to a folder that exists' });
    const program = await buildProgram({ io, env, cwd: cwd ?? '/', stdin: context.stdin ?? process.stdin }, mode, only);
    // The same a level down: `trigger config help nonesuch` is `trigger config nonesuch` (it showed config's help, no word of it).
    const group = program.commands.find((c) => c.name() === argv[2] && argv[3] === 'help' && /^\w/.test(argv[4] ?? ''));
    if (group && !group.commands.some((c) => c.name() === argv[4])) argv = argv.toSpliced(3, 1);
    // `trigger --json fire …`: the program itself takes none of the commands' options; say where they go.
    const flag = argv[2]?.split('=')[0] ?? '';
    const named = program.commands.find((c) => argv.includes(c.name()) && c.options.some((o) => [o.long, o.short].includes(flag)));
    if (named) program.showHelpAfterError(`(options go after the command: trigger ${named.name()} ${flag} …)`);
    if (argv[2] === '__complete') {
      // Asked by the shell completion scripts on every Tab (see commands/completion.ts); hidden from help.
      const { runComplete } = await import('./commands/completion.js');
      return runComplete(program, argv.slice(3), io, env, context.cwd);
    }
    io.printOnly = PRINT_ONLY.has(argv[2] ?? '') || PRINT_ONLY.has(argv.slice(2, 4).join(' '));
    await program.parseAsync(argv);
    if (!io.printOnly) return 0;
    // Said on stderr (Output) once the write fails; where the output is the whole result, it is not done either (as cat).
    await io.flushed();
    return io.stdoutError !== undefined && io.stdoutError.code !== 'EPIPE' ? 1 : 0;
  } catch (error) {
    return report(error, io, mode, env);
  }
}
