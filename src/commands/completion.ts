/**
 * trigger completion <bash|zsh|fish>: a completion script written from the program's own commands and
 * options, so it never drifts from them.
 *
 *   bash:  source <(trigger completion bash)          (or save it in ~/.local/share/bash-completion/completions/trigger)
 *   zsh:   source <(trigger completion zsh)
 *   fish:  trigger completion fish > ~/.config/fish/completions/trigger.fish
 */
import type { Command } from 'commander';

export type Shell = 'bash' | 'zsh' | 'fish';

interface Node {
  /** "fire", or "config set-key" */
  path: string;
  options: Array<{ long: string; description: string; takesValue: boolean; choices: readonly string[] | undefined }>;
  subcommands: Array<{ name: string; description: string }>;
  description: string;
}

function nodes(program: Command): Node[] {
  const out: Node[] = [];
  const visit = (command: Command, path: string) => {
    const visible = command.commands.filter((c) => c.name() !== 'help');
    out.push({
      path,
      description: command.description(),
      options: command.options
        .filter((o) => o.long)
        .map((o) => ({ long: o.long!, description: o.description, takesValue: o.required || o.optional, choices: o.argChoices })),
      subcommands: [
        ...visible.map((c) => ({ name: c.name(), description: c.description() })),
        // An argument with fixed choices completes like subcommands (completion's <shell>).
        ...(command.registeredArguments[0]?.argChoices ?? []).map((name) => ({
          name,
          description: command.registeredArguments[0]!.description,
        })),
      ],
    });
    for (const sub of visible) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return out;
}

const words = (list: string[]) => list.join(' ');

/** The profiles in the config file, asked of trigger itself when the user presses Tab. */
const PROFILE_NAMES = 'trigger config list --names 2>/dev/null';

/** What an argument completes to: fixed words, or the profiles there are. */
const ARGUMENT_WORDS: Record<string, string[] | 'profiles'> = {
  'config get': ['api-key', 'base-url'],
  'config unset': ['api-key', 'base-url'],
  'config use': 'profiles',
  'config delete': 'profiles',
};

function bash(program: Command): string {
  const all = nodes(program);
  const steps = all.flatMap((node) => node.subcommands.map((sub) => JSON.stringify(`${node.path}/${sub.name}`))).join('|');
  const choices = all
    .flatMap((node) =>
      node.options
        .filter((o) => o.choices)
        .map((o) => `    ${o.long}) COMPREPLY=($(compgen -W ${JSON.stringify(words([...o.choices!]))} -- "$cur")); return ;;`),
    )
    .join('\n');
  const cases = all
    .map((node) => {
      const options = words([...node.options.map((o) => o.long), '--help']);
      const argument = ARGUMENT_WORDS[node.path];
      const subs = argument === 'profiles' ? `$(${PROFILE_NAMES})` : words([...node.subcommands.map((s) => s.name), ...(argument ?? [])]);
      return `    ${JSON.stringify(node.path)}) options=${JSON.stringify(options)}; subcommands="${subs}" ;;`;
    })
    .join('\n');
  return `# trigger completion for bash: source <(trigger completion bash)
_trigger() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} path="" word i options subcommands
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    case "$path/$word" in
      ${steps}) path=\${path:+$path }$word ;;
    esac
  done
  case "$prev" in
${choices}
    --profile) COMPREPLY=($(compgen -W "$(${PROFILE_NAMES})" -- "$cur")); return ;;
  esac
  case "$path" in
${cases}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [[ -n $subcommands ]]; then
    COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
  fi
}
complete -o default -F _trigger trigger
`;
}

function zsh(program: Command): string {
  return `# trigger completion for zsh: source <(trigger completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(program).split('\n').slice(1).join('\n')}`;
}

function fish(program: Command): string {
  const lines = [
    '# trigger completion for fish: trigger completion fish > ~/.config/fish/completions/trigger.fish',
    'complete -c trigger -f',
  ];
  const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  for (const node of nodes(program)) {
    const parts = node.path ? node.path.split(' ') : [];
    const seen = parts.map((p) => `__fish_seen_subcommand_from ${p}`);
    const condition = parts.length ? seen.join('; and ') : '__fish_use_subcommand';
    for (const sub of node.subcommands) {
      const notYet = node.subcommands.map((s) => s.name).join(' ');
      const when = parts.length ? `${condition}; and not __fish_seen_subcommand_from ${notYet}` : condition;
      lines.push(`complete -c trigger -n ${quote(when)} -a ${sub.name} -d ${quote(sub.description)}`);
    }
    const argument = ARGUMENT_WORDS[node.path];
    if (argument) {
      lines.push(
        `complete -c trigger -n ${quote(condition)} -a ${quote(argument === 'profiles' ? `(${PROFILE_NAMES})` : argument.join(' '))}`,
      );
    }
    for (const option of node.options) {
      const flags = [`-l ${option.long.replace(/^--/, '')}`];
      if (option.long === '--profile') flags.push(`-x -a ${quote(`(${PROFILE_NAMES})`)}`);
      else if (option.takesValue) flags.push(option.choices ? `-x -a ${quote(option.choices.join(' '))}` : '-r -F');
      lines.push(
        `complete -c trigger -n ${quote(parts.length ? condition : '__fish_use_subcommand')} ${flags.join(' ')} -d ${quote(option.description)}`,
      );
    }
  }
  lines.push(`complete -c trigger -n '__fish_seen_subcommand_from batch' -F`);
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: Shell, program: Command): string {
  switch (shell) {
    case 'bash':
      return bash(program);
    case 'zsh':
      return zsh(program);
    case 'fish':
      return fish(program);
  }
}
