/**
 * trigger completion <bash|zsh|fish>: a small script per shell that, on every Tab, asks the tool
 * itself (`trigger __complete <words>`, see complete.ts) what may come next. So the scripts hold no
 * list of commands, options or values: the commander tree, the config file's profiles and the
 * catalog's triggers are the one source of truth, and an upgraded trigger completes its new options
 * without a new script. How to install each is in its first lines and in the command's help.
 */
import { Argument, type Command } from 'commander';
import type { Context } from './shared.js';

// bash: the words come from bash-completion's _get_comp_words_by_ref where it is loaded (it keeps
// `--format=csv` and `a:b` whole), else from COMP_WORDS joined back at `=` and `:`. Readline
// replaces only the text after the last `=` or `:` of the word, so that part of each answer is kept.
const BASH = `# trigger completion for bash: source <(trigger completion bash)
# On every Tab it asks \`trigger __complete\`, so it always matches the trigger installed.
_trigger() {
  local cur words cword line prefix directive=plain i
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
  prefix=\${cur%"\${cur##*[=:]}"}
  COMPREPLY=()
  while IFS= read -r line; do
    case $line in
      :files) directive=files ;;
      :plain) ;;
      *)
        line=\${line%%$'\\t'*}
        COMPREPLY+=("\${line#"$prefix"}")
        ;;
    esac
  done < <(trigger __complete "\${words[@]:1:cword}" 2>/dev/null)
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

// zsh: a native completion function (descriptions shown, no bashcompinit). It does not run
// compinit, which ~/.zshrc does; `path` is never a local name here, since in zsh it is tied to PATH.
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
        candidates+=("\${value//:/\\\\:}\${description:+:$description}")
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

// fish: one completion that asks trigger; each value carries its own description (a profile's base
// URL, a trigger's name), not its option's.
const FISH = `# trigger completion for fish: trigger completion fish > ~/.config/fish/completions/trigger.fish
# On every Tab it asks \`trigger __complete\`, so it always matches the trigger installed.
function __trigger_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    for line in (trigger __complete $tokens[2..-1] "$current" 2>/dev/null)
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

export function command(program: Command, { io }: Context): Command {
  return program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(Object.keys(SCRIPTS)))
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
    .action((shell: Shell) => io.write(SCRIPTS[shell]));
}
