/**
 * A real interactive shell (bash with bash-completion, zsh or fish) in a pseudo-terminal that tmux
 * provides, with `trigger` on its PATH (the built binary) and trigger's completion installed as a
 * user would install it. Keys are typed with `tmux send-keys`; the screen is read with capture-pane.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, type Sandbox } from './cli.js';
import type { Need } from './needs.js';

export type ShellName = 'bash' | 'zsh' | 'fish';

export const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';

/** What a ShellSession of each shell needs from the machine (for needs()): the shell, and tmux. */
export const SHELL_NEEDS: Record<ShellName, Need[]> = {
  bash: ['tmux', 'bash-completion'],
  zsh: ['tmux', 'zsh'],
  fish: ['tmux', 'fish'],
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ShellSession {
  readonly #socket: string;

  private constructor(
    socket: string,
    readonly shell: ShellName,
  ) {
    this.#socket = socket;
  }

  /**
   * Starts the shell in `cwd` with the sandbox's environment. `install` says how the completion is
   * installed: zsh `source` (in .zshrc after compinit) or `fpath` (a _trigger file); bash and fish
   * have one way each.
   */
  static async start(shell: ShellName, box: Sandbox, options: { cwd: string; install?: 'source' | 'fpath' }): Promise<ShellSession> {
    const dir = fs.mkdtempSync(path.join(box.home, `${shell}-`));
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'trigger'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, {
      mode: 0o755,
    });
    const env: NodeJS.ProcessEnv = { ...box.env, PATH: `${bin}:${box.env.PATH}`, TERM: 'xterm-256color', SHELL: shell };
    let command: string[];
    if (shell === 'bash') {
      const rc = path.join(dir, 'bashrc');
      fs.writeFileSync(
        rc,
        [
          `source ${BASH_COMPLETION}`,
          'source <(trigger completion bash)',
          "PS1='$ '",
          "bind 'set show-all-if-ambiguous on'",
          "bind 'set completion-query-items 0'",
          "bind 'set page-completions off'",
          '',
        ].join('\n'),
      );
      command = ['bash', '--noprofile', '--rcfile', rc, '-i'];
    } else if (shell === 'zsh') {
      const functions = path.join(dir, 'functions');
      fs.mkdirSync(functions);
      const lines = ["PROMPT='$ '", 'unsetopt beep'];
      // A dump of its own: two zsh sessions starting side by side would write one dump at once.
      const dump = path.join(dir, 'zcompdump');
      if (options.install === 'fpath') {
        fs.writeFileSync(path.join(functions, '_trigger'), execFileSync('trigger', ['completion', 'zsh'], { env, encoding: 'utf8' }));
        lines.push(`fpath=(${functions} $fpath)`, `autoload -Uz compinit && compinit -u -d ${dump}`);
      } else {
        lines.push(`autoload -Uz compinit && compinit -u -d ${dump}`, 'source <(trigger completion zsh)');
      }
      fs.writeFileSync(path.join(dir, '.zshrc'), `${lines.join('\n')}\n`);
      env.ZDOTDIR = dir;
      command = ['zsh', '-i'];
    } else {
      const config = path.join(box.home, '.config', 'fish');
      fs.mkdirSync(path.join(config, 'completions'), { recursive: true });
      fs.writeFileSync(
        path.join(config, 'completions', 'trigger.fish'),
        execFileSync('trigger', ['completion', 'fish'], { env, encoding: 'utf8' }),
      );
      fs.writeFileSync(path.join(config, 'config.fish'), "set -g fish_greeting ''\nfunction fish_prompt; echo -n '$ '; end\n");
      env.XDG_DATA_HOME = path.join(box.home, '.local', 'share');
      command = ['fish', '-i'];
    }
    const socket = path.join(dir, 'tmux.sock');
    const session = new ShellSession(socket, shell);
    session.#tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'test', '-x', '160', '-y', '50', '-c', options.cwd, ...command], env);
    // zsh's compinit and each shell's `trigger completion` take seconds of CPU: under a load of 20 on
    // two cores the first prompt came after more than 10 s.
    await session.waitFor(/^\$\s*$/m, 45_000);
    return session;
  }

  #tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync('tmux', ['-S', this.#socket, ...args], { encoding: 'utf8', env: env ?? { PATH: process.env.PATH } });
  }

  /** Types text as it is, then the named keys (Tab, C-c). */
  type(text: string, ...keys: string[]): void {
    if (text) this.#tmux(['send-keys', '-t', 'test', '-l', text]);
    if (keys.length) this.#tmux(['send-keys', '-t', 'test', ...keys]);
  }

  screen(): string {
    return this.#tmux(['capture-pane', '-p', '-t', 'test'])
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trim();
  }

  /**
   * Waits for the screen to match; returns it, or throws with what was on screen. The screen is
   * looked at every 20 ms (a capture-pane costs a few ms): each Tab runs the built binary, and a
   * coarser look added its slack to every one of the completion tests' hundred-odd waits.
   */
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > end) throw new Error(`${this.shell}: the screen never matched ${pattern}:\n${screen}`);
      await sleep(20);
    }
  }

  /**
   * Types `line`, then Tab; waits for the screen to match. Then clears the line and the screen: C-l
   * only once the shell has taken the C-c (a fresh, empty prompt on the last line), since the
   * terminal drops what is typed ahead of an interrupt.
   */
  async tab(line: string, pattern: RegExp): Promise<string> {
    this.type(line, 'Tab');
    try {
      return await this.waitFor(pattern);
    } finally {
      this.type('', 'C-c');
      await this.waitFor(/(^|\n)\$$/);
      this.type('', 'C-l');
      await this.waitFor(/^\$\s*$/);
    }
  }

  close(): void {
    try {
      this.#tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}
