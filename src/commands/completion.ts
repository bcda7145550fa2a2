/**
 * trigger completion <bash|zsh|fish> prints a small script per shell that, on every Tab, asks the tool itself what may come next:
 * `trigger __complete <word>...`, with the words after `trigger`, the last one the word being completed (empty for a new one). The answer
 * is one candidate a line, `value<TAB>description`, then a last line `:files` when the shell should also offer file names, else `:plain`.
 *
 * The answer comes from the commander tree itself (commands, options, fixed choices) and from the user's files (profile names, the
 * catalog's triggers), so the scripts hold no list: the three shells share one source of truth, never drift from the program, and an
 * upgraded trigger completes its new options without a new script. __complete runs on every Tab: this module imports nothing that a command
 * needs. How to install each script is in its first lines and in the command's help.
 */
import { Argument, type Command, type Option } from 'commander';
import type { Output } from '../output/io.js';
import { ansiQuote, printable } from '../output/render.js';
import { configPath } from '../settings/paths.js';
import { readConfig, SETTINGS } from '../settings/store.js';
import { activeProfile } from '../settings/resolve.js';
import { findCatalog } from '../catalog/find.js';
import { idIn, loadCatalog } from '../catalog/load.js';
import { tryOr } from '../try-or.js';
import type { Context } from './shared.js';

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f]+/g;

type Candidate = { value: string; description?: string };

type Completion = { candidates: Candidate[]; files: boolean }; // files: offer file names too (the shell lists them itself).

/** Where the user's files tell the values, or the values themselves. */
type ValueKind = 'profiles' | 'triggers' | 'files' | Candidate[];

const SETTING_NAMES: Candidate[] = Object.entries(SETTINGS).map(([value, setting]) => ({ value, description: setting.about }));

/** An argument's values, by command path and argument name, where its name does not say it. */
// prettier-ignore
const ARGUMENT_VALUES: Record<string, ValueKind> = {
  'config get name': SETTING_NAMES, 'config unset name': SETTING_NAMES,
  'triggers show id': 'triggers', 'triggers edit id': 'triggers', 'triggers remove id': 'triggers',
};

/** An option's values, by its long name, where its placeholder does not say it. */
const OPTION_VALUES: Record<string, ValueKind> = { '--profile': 'profiles', '--trigger': 'triggers' };

/** "config set-key": the command's words after `trigger`. */
const pathOf = (command: Command): string => (command.parent?.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name());

function argumentValues(command: Command, argument: Argument): ValueKind | undefined {
  if (argument.argChoices) return argument.argChoices.map((value) => ({ value }));
  const name = argument.name();
  const byName = name === 'triggerId' ? 'triggers' : name === 'profile' ? 'profiles' : /file/i.test(name) ? 'files' : undefined;
  return ARGUMENT_VALUES[`${pathOf(command)} ${name}`] ?? byName;
}

function optionValues(option: Option): ValueKind | undefined {
  if (option.argChoices) return option.argChoices.map((value) => ({ value }));
  // Else the placeholder says what the value is: --failed <file>, --catalog <file>.
  return OPTION_VALUES[option.long ?? ''] ?? (/<(file|path)[^>]*>/i.test(option.flags) ? 'files' : undefined);
}

function visibleCommands(command: Command): Command[] {
  const visible = command.createHelp().visibleCommands(command);
  return visible.filter((c) => c.name() !== 'help');
}

function findOption(command: Command, word: string): Option | undefined {
  const options = command.createHelp().visibleOptions(command).concat(command.options);
  return options.find((o) => o.long === word || o.short === word);
}

/** Where the words typed so far leave the command line. */
function walk(program: Command, done: string[]) {
  const at = {
    command: program, // the command reached
    typed: new Map<string, string>(), // the options typed so far, by long name, with the last value of each
    positional: 0, // arguments given to the command reached
    expecting: undefined as Option | undefined, // the option whose value comes next
    variadic: undefined as Option | undefined, // a variadic option still taking values
    onlyArguments: false, // after `--`
  };
  const note = (option: Option, value: string) => at.typed.set(option.long ?? option.short ?? option.flags, value);
  for (const word of done) {
    if (at.expecting) {
      note(at.expecting, word);
      if (at.expecting.variadic) at.variadic = at.expecting;
      at.expecting = undefined;
    } else if (!at.onlyArguments && word === '--') {
      at.onlyArguments = true;
      at.variadic = undefined;
    } else if (!at.onlyArguments && word.startsWith('-') && word !== '-') {
      at.variadic = undefined;
      const [flag, inline] = splitInline(word);
      const option = findOption(at.command, flag);
      if (!option) continue;
      if (inline === undefined && option.required) at.expecting = option;
      else note(option, inline ?? '');
    } else if (at.variadic) {
      note(at.variadic, word);
    } else {
      const sub = at.onlyArguments ? undefined : visibleCommands(at.command).find((c) => c.name() === word || c.aliases().includes(word));
      if (sub && at.positional === 0) at.command = sub;
      else at.positional++;
    }
  }
  return at;
}

/** `--format=csv` as the flag and its value; any other word as itself. */
function splitInline(word: string): [string, string | undefined] {
  const equals = word.indexOf('=');
  return word.startsWith('--') && equals > 0 ? [word.slice(0, equals), word.slice(equals + 1)] : [word, undefined];
}

const NOTHING: Completion = { candidates: [], files: false };

function answerAt(at: ReturnType<typeof walk>, partial: string, env: NodeJS.ProcessEnv, cwd: string | undefined): Completion {
  const { command, typed, positional, onlyArguments } = at;
  const values = (kind: ValueKind | undefined, prefix = ''): Completion => {
    if (kind === undefined) return NOTHING;
    if (kind === 'files') return { candidates: [], files: true };
    const list = kind === 'profiles' ? profileCandidates(env) : kind === 'triggers' ? catalogCandidates(typed, env, cwd) : kind;
    return { candidates: list.map((c) => ({ ...c, value: prefix + c.value })), files: false };
  };
  const options = (): Completion => ({
    candidates: command
      .createHelp()
      .visibleOptions(command)
      .filter((o) => o.long && (o.variadic || !typed.has(o.long ?? o.short ?? o.flags)))
      .map((o) => ({ value: o.long!, description: o.description })),
    files: false,
  });

  if (at.expecting) return values(optionValues(at.expecting));
  if (!onlyArguments && partial.startsWith('--') && partial.includes('=')) {
    const [flag] = splitInline(partial);
    const option = findOption(command, flag);
    // The shell completes files after the `=` itself only when told the prefix; leave files to a plain word.
    return option && (option.required || option.optional) ? { ...values(optionValues(option), `${flag}=`), files: false } : NOTHING;
  }
  if (!onlyArguments && partial.startsWith('-')) return options();
  if (at.variadic) return values(optionValues(at.variadic));
  const subs = visibleCommands(command);
  if (subs.length > 0 && positional === 0 && !onlyArguments)
    return { candidates: subs.map((c) => ({ value: c.name(), description: c.description() })), files: false };
  const args = command.registeredArguments;
  const last = args.at(-1);
  const argument = args[positional] ?? (last?.variadic ? last : undefined);
  const answer = argument ? values(argumentValues(command, argument)) : NOTHING;
  const missing = args.slice(positional).some((a) => a.required);
  return !argument || (answer.candidates.length === 0 && !answer.files && !missing) ? options() : answer;
}

/** The profiles in the config file, each described by its base URL. */
function profileCandidates(env: NodeJS.ProcessEnv): Candidate[] {
  const config = readConfig(configPath(env));
  return Object.entries(config.profiles ?? {}).map(([name, profile]) => ({
    value: name,
    description: `${typeof profile.baseUrl === 'string' ? profile.baseUrl : 'profile'}${name === config.active ? ' (active)' : ''}`,
  }));
}

/**
 * The catalog's triggers (as `fire` would find the catalog: --catalog, TRIGGER_CATALOG, else triggers.json here or in a parent folder; none
 * with --no-catalog), each under its id in the profile typed (--profile), else TRIGGER_PROFILE, else the active one, and described by its
 * name. None when there is no catalog or it cannot be used: a Tab never prints an error.
 */
function catalogCandidates(typed: Map<string, string>, env: NodeJS.ProcessEnv, cwd: string | undefined): Candidate[] {
  // process.cwd() throws in a folder that was deleted: runComplete answers nothing then.
  const found = findCatalog({ cwd: cwd ?? process.cwd(), env, flag: typed.has('--no-catalog') ? false : typed.get('--catalog') });
  if (!found) return [];
  const catalog = loadCatalog(found, { env });
  const profile = activeProfile({ profile: typed.get('--profile') }, env);
  return Object.entries(catalog.data.triggers).map(([key, entry]) => ({
    value: idIn(key, entry, profile),
    description: [entry.name ?? '', entry.deprecated ? `(deprecated: ${entry.deprecated})` : ''].filter(Boolean).join(' '),
  }));
}

/** `trigger __complete <words...>` in the folder `cwd`: prints the answer as the header says; never fails (a Tab prints no errors). */
export function runComplete(program: Command, words: string[], io: Output, env: NodeJS.ProcessEnv, cwd?: string): number {
  const partial = words.at(-1) ?? '';
  const answer = tryOr(() => answerAt(walk(program, words.slice(0, -1)), partial, env, cwd), NOTHING);
  const seen = new Set<string>();
  // A control breaks the line protocol; an invisible character (Cf, U+FE0F) raw reaches the terminal, and escaped is another id. bash's
  // script asks for such an id as $'...' with it as its bytes, read back as the id in any locale (docs/choices.md); zsh and fish get none.
  const ansi = env.TRIGGER_COMPLETE_SHELL === 'bash';
  const offered = answer.candidates.filter((c) => {
    if (!c.value.startsWith(partial) || seen.has(c.value)) return false;
    const unsaid = !ansi || /[\p{Cc}\p{Cs}]/u.test(c.value); // a control, or half a character
    if (printable(c.value) !== c.value && unsaid) return false;
    seen.add(c.value);
    return true;
  });
  const shown = (value: string) => (printable(value) === value ? value : `\t${ansiQuote(value)}`); // a tab: taken as it is
  const oneLine = (text: string) => printable(text.replace(CONTROLS, ' ').trim());
  const lines = offered.map((c) => (c.description ? `${shown(c.value)}\t${oneLine(c.description)}` : shown(c.value)));
  io.write(`${[...lines, answer.files ? ':files' : ':plain'].join('\n')}\n`);
  return 0;
}

// bash: the words come from bash-completion's _get_comp_words_by_ref where loaded (it keeps `--format=csv` and `a:b` whole), else from
// COMP_WORDS joined at `=` and `:`; they are asked without quotes and backslashes, read without eval (that would run a `$(...)`). Readline
// replaces only $2 (after the last `=` or `:`, or an open quote): an answer keeps what follows, quoted for the quote, else a backslash
// before each ASCII mark (printf %q's $'\303' for a character past ASCII, in the C locale, was cut by readline mid-escape).
const BASH = `# trigger completion for bash: source <(trigger completion bash)
# On every Tab it asks \`trigger __complete\`, so it always matches the trigger installed.
_trigger_unquote() {
  local i c
  text='' quote=''
  for ((i = 0; i < \${#1}; i++)); do
    c=\${1:i:1}
    if [[ $quote && $c == "$quote" ]]; then quote=''
    elif [[ -z $quote && $c == [\\'\\"] ]]; then quote=$c
    elif [[ $c == \\\\ && $quote != "'" ]]; then ((++i)) && text+=\${1:i:1}
    else text+=$c; fi
  done
}
_trigger() {
  local cur words cword line directive=plain i text quote skip asked=()
  if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
    _get_comp_words_by_ref -n =: cur words cword
  else
    words=()
    for ((i = 0; i <= COMP_CWORD; i++)); do
      if ((i > 1)) && [[ \${COMP_WORDS[i]} == [=:] || \${COMP_WORDS[i-1]} == [=:] ]]; then
        words[\${#words[@]}-1]+=\${COMP_WORDS[i]}
      else
        words+=("\${COMP_WORDS[i]}")
      fi
    done
    cword=$((\${#words[@]} - 1))
    cur=\${words[cword]}
  fi
  _trigger_unquote "\${cur%"$2"}" && skip=\${#text}
  for ((i = 1; i <= cword; i++)); do _trigger_unquote "\${words[i]}" && asked+=("$text"); done
  COMPREPLY=()
  while IFS= read -r line; do
    case $line in
      :files) directive=files ;;
      :plain) ;;
      $'\\t'*) line=\${line:1} && ((skip == 0)) && [[ -z $quote ]] && COMPREPLY+=("\${line%%$'\\t'*}") ;; # as $'...', whole
      *)
        line=\${line%%$'\\t'*} line=\${line:skip}
        if [[ $quote == "'" ]]; then line=\${line//\\'/\\'\\\\\\'\\'}
        elif [[ $quote ]]; then line=\${line//\\\\/\\\\\\\\} line=\${line//\\$/\\\\\\$} line=\${line//\\\`/\\\\\\\`} line=\${line//\\"/\\\\\\"} line=\${line//!/\\"\\\\!\\"}
        elif [[ $line ]]; then
          text='' && for ((i = 0; i < \${#line}; i++)); do [[ \${line:i:1} == [[:alnum:]_./@%+,:=-] || \${line:i:1} == [![:ascii:]] ]] || text+=\\\\; text+=\${line:i:1}; done
          line=$text
        fi
        COMPREPLY+=("$line")
        ;;
    esac
  done < <(TRIGGER_COMPLETE_SHELL=bash trigger __complete "\${asked[@]}" 2>/dev/null)
  if ((\${#COMPREPLY[@]} > 1)); then
    # Readline puts their common start on the line: one that leaves a $'...' open (cut inside an escape, review26) is not offered.
    line=\${COMPREPLY[0]}
    for text in "\${COMPREPLY[@]}"; do while [[ \${text:0:\${#line}} != "$line" ]]; do line=\${line%?}; done; done
    [[ $line == *"\\$'"* && \${line##*"\\$'"} != *"'"* ]] && COMPREPLY+=("$cur")
  fi
  if [[ $directive == files ]]; then
    compopt -o filenames 2>/dev/null
    if declare -F _filedir >/dev/null 2>&1; then
      _filedir
    else
      while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
    fi
  fi
}
complete -o nosort -F _trigger trigger 2>/dev/null || complete -F _trigger trigger
`;

// zsh: a native completion function (descriptions shown; no bashcompinit, no compinit: ~/.zshrc runs it); no local `path` (tied to PATH).
const ZSH = `#compdef trigger
# trigger completion for zsh:
#   source <(trigger completion zsh)                   in ~/.zshrc, after compinit
#   trigger completion zsh > ~/.zfunc/_trigger         or as a file in a folder of $fpath
#                                                      (fpath=(~/.zfunc $fpath) before compinit)
# On every Tab it asks \`trigger __complete\`, so it always matches the trigger installed.
_trigger() {
  local -a lines candidates
  local line value description directive=plain flag=''
  lines=("\${(@f)$(trigger __complete "\${(@Q)words[2,CURRENT-1]}" "\${(Q)PREFIX}" 2>/dev/null)}")
  if [[ $PREFIX == --*=* ]]; then
    flag=\${PREFIX%%=*}=
    compset -P '*='
  fi
  for line in $lines; do
    case $line in
      :files) directive=files ;;
      :plain|'') ;;
      *)
        value=\${line%%$'\\t'*}
        value=\${value#$flag}
        description=''
        [[ $line == *$'\\t'* ]] && description=\${line#*$'\\t'}
        candidates+=("\${\${(q)value}//:/\\\\:}\${description:+:$description}")
        ;;
    esac
  done
  (( \${#candidates} )) && _describe -t values 'trigger' candidates
  [[ $directive == files ]] && _files
  return 0
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _trigger "$@"
elif (( \${+functions[compdef]} )); then
  compdef _trigger trigger
else
  print -u2 "trigger: completion needs compinit: put 'autoload -Uz compinit && compinit' before this line in ~/.zshrc"
fi
`;

// fish: one completion that asks trigger; each value has its own description (a profile's base URL, a trigger's name), not its option's.
const FISH = `# trigger completion for fish: trigger completion fish > ~/.config/fish/completions/trigger.fish
# On every Tab it asks \`trigger __complete\`, so it always matches the trigger installed.
function __trigger_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l word (string unescape -- "$current")
    for line in (trigger __complete $tokens[2..-1] "$word" 2>/dev/null)
        switch $line
            case :files
                __fish_complete_path "$current"
            case :plain
            case '*'
                printf '%s\\n' $line
        end
    end
end
complete -c trigger -e
complete -c trigger -f -a '(__trigger_complete)'
`;

const SCRIPTS = { bash: BASH, zsh: ZSH, fish: FISH };

export type Shell = keyof typeof SCRIPTS;

const EXAMPLES = `
Examples:
  $ source <(trigger completion bash)                       # add to ~/.bashrc
  $ source <(trigger completion zsh)                        # add to ~/.zshrc, after compinit
  $ trigger completion fish > ~/.config/fish/completions/trigger.fish

The script asks trigger on each Tab (commands, options, profiles, the catalog's triggers), so it
stays right when trigger is upgraded.`;

export function command(program: Command, { io }: Context): Command {
  return program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(Object.keys(SCRIPTS)))
    .addHelpText('after', EXAMPLES)
    .action((shell: Shell) => io.write(SCRIPTS[shell]));
}
