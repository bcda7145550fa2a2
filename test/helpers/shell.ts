/**
 * A real interactive shell (bash with bash-completion, zsh or fish) in a pseudo-terminal that tmux
 * provides, with `trigger` on its PATH (the built binary) and trigger's completion installed as a
 * user would install it. Keys are typed with `tmux send-keys`; the screen is read with capture-pane.
 *
 * Both go through one tmux client in control mode (`tmux -C`), which takes commands on its stdin and
 * tells of every output of the shell (`%output`): the screen is read again when the shell wrote
 * something, not every few ms, and no tmux process is started for a key or a look. Started for each
 * and every 20 ms, tmux took 14 of the completion tests' 19 s on a loaded machine (333 runs).
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
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

/**
 * A tmux client in control mode: a command a line on its stdin, each answered by a block between
 * `%begin` and `%end` (or `%error`) on its stdout; between blocks, notifications such as `%output`.
 */
class Control {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #answers: Array<{ resolve(lines: string[]): void; reject(error: Error): void }> = [];
  /** The output of the command being answered. */
  #block: string[] | undefined;
  /** Inside a block this client did not ask for (the attach on its command line). */
  #skipping = false;
  #closed = false;
  /** Called on each `%output` (the shell wrote to the terminal), and when the client ends. */
  onOutput: () => void = () => undefined;

  constructor(socket: string) {
    this.#child = spawn('tmux', ['-S', socket, '-C', 'attach', '-t', 'test'], { env: { PATH: process.env.PATH } });
    let pending = '';
    this.#child.stdout.setEncoding('utf8').on('data', (data: string) => {
      const lines = (pending + data).split('\n');
      pending = lines.pop()!;
      for (const line of lines) this.#line(line);
    });
    this.#child.stdin.on('error', () => undefined); // the server is gone: 'close' settles what waits
    this.#child.on('close', () => {
      this.#closed = true;
      for (const answer of this.#answers.splice(0)) answer.reject(new Error('the tmux client ended'));
      this.onOutput();
    });
  }

  #line(line: string): void {
    const edge = /^%(begin|end|error) \d+ \d+ (\d+)$/.exec(line);
    if (this.#block || this.#skipping) {
      // Inside a block every line is the command's output (a screen line may start with %), to its end.
      if (!edge || edge[1] === 'begin') {
        this.#block?.push(line);
      } else if (this.#skipping) {
        this.#skipping = false;
      } else {
        const block = this.#block!;
        this.#block = undefined;
        const answer = this.#answers.shift();
        if (edge[1] === 'error') answer?.reject(new Error(`tmux: ${block.join('\n')}`));
        else answer?.resolve(block);
      }
    } else if (edge?.[1] === 'begin') {
      // Flags 1: a command from this client's stdin; 0: the attach it was started with.
      if (edge[2] === '1') this.#block = [];
      else this.#skipping = true;
    } else if (line.startsWith('%output ')) {
      this.onOutput();
    }
  }

  /** Runs one tmux command, as tmux parses a line; resolves with its output lines. */
  command(line: string): Promise<string[]> {
    if (this.#closed) return Promise.reject(new Error('the tmux client ended'));
    return new Promise((resolve, reject) => {
      this.#answers.push({ resolve, reject });
      this.#child.stdin.write(`${line}\n`);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#child.kill();
  }
}

export class ShellSession {
  readonly #socket: string;
  #control: Control | undefined;
  /** Whether the shell wrote something since the screen was last read. */
  #written = true;
  #wake: (() => void) | undefined;

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
          'unset HISTFILE', // a line entered (Enter) would be written to ~/.bash_history as kill-server ends it, into a sandbox being removed
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
      // Without this folder, fish's first interactive start runs its man-page completion generator in
      // the background (disowned), which goes on writing into the sandbox after the test: cleanup then
      // fails with ENOTEMPTY at random, and the generator spends a core for nothing.
      fs.mkdirSync(path.join(env.XDG_DATA_HOME, 'fish', 'generated_completions'), { recursive: true });
      command = ['fish', '-i'];
    }
    const socket = path.join(dir, 'tmux.sock');
    const session = new ShellSession(socket, shell);
    session.#tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'test', '-x', '160', '-y', '50', '-c', options.cwd, ...command], env);
    session.#control = new Control(socket);
    session.#control.onOutput = () => {
      session.#written = true;
      session.#wake?.();
    };
    // zsh's compinit and each shell's `trigger completion` take seconds of CPU: under a load of 20 on
    // two cores the first prompt came after more than 10 s.
    await session.waitFor(/^\$\s*$/m, 45_000);
    return session;
  }

  #tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync('tmux', ['-S', this.#socket, ...args], { encoding: 'utf8', env: env ?? { PATH: process.env.PATH } });
  }

  /** Types text as it is (as bytes, so that no word of it is read as a key's name), then the named keys (Tab, C-u). */
  async type(text: string, ...keys: string[]): Promise<void> {
    const bytes = [...Buffer.from(text)].map((byte) => byte.toString(16).padStart(2, '0'));
    if (bytes.length) await this.#control!.command(`send-keys -t test -H ${bytes.join(' ')}`);
    if (keys.length) await this.#control!.command(`send-keys -t test ${keys.join(' ')}`);
  }

  async screen(): Promise<string> {
    const lines = await this.#control!.command('capture-pane -p -t test');
    return lines
      .map((line) => line.trimEnd())
      .join('\n')
      .trim();
  }

  /**
   * Waits for the screen to match; returns it, or throws with what was on screen. The screen is read
   * again each time the shell has written something since it was last read.
   */
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      this.#written = false;
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > end || this.#control!.closed) throw new Error(`${this.shell}: the screen never matched ${pattern}:\n${screen}`);
      if (!this.#written) await this.#nextWrite(end - Date.now());
    }
  }

  /** Resolves when the shell writes something, or after `ms` (a guard: the caller then gives up). */
  #nextWrite(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#wake?.(), ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /**
   * Types `line`, then Tab; waits for the screen to match. Then empties the line and the screen with
   * keys (end of line, erase to its start, clear the screen), not with a Ctrl-C: an interrupt that
   * comes while the completion still runs is lost in bash and zsh, and the next line typed lands on
   * the old one. Keys wait in the terminal until the shell reads them.
   */
  async tab(line: string, pattern: RegExp): Promise<string> {
    await this.type(line, 'Tab');
    try {
      return await this.waitFor(pattern);
    } finally {
      await this.type('', 'C-e', 'C-u', 'C-l');
      await this.waitFor(/^\$\s*$/);
    }
  }

  close(): void {
    this.#control?.close();
    try {
      this.#tmux(['kill-server']);
    } catch {
      // already gone
    }
  }
}
