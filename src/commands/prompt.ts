/** Reading a secret: piped standard input, or a prompt that does not echo on a terminal. */
import readline from 'node:readline';
import { Writable, type Readable } from 'node:stream';
import { text as readAll } from 'node:stream/consumers';
import type { ReadStream } from 'node:tty';
import { TriggerError, UsageError } from '../errors.js';

/** Reads one line with readline, whose echo goes nowhere (the terminal in raw mode shows nothing typed). */
function promptHidden(question: string, input: ReadStream, output: NodeJS.WritableStream): Promise<string> {
  output.write(question);
  const rl = readline.createInterface({ input, output: new Writable({ write: (_chunk, _encoding, done) => done() }), terminal: true });
  return new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve('')); // Ctrl-D
    rl.once('SIGINT', () => reject(new TriggerError('interrupted', 'cancelled; no key was saved')));
  }).finally(() => {
    rl.close();
    output.write('\n');
  });
}

/** `input`: the command's standard input; `output`: where the prompt is written (the Output's terminal, stderr). */
export async function readSecret(question: string, input: Readable, output: NodeJS.WritableStream): Promise<string> {
  const tty = input as ReadStream;
  if (tty.isTTY) {
    // An empty answer (Enter pressed too soon) asks again, as `gh auth login` does.
    for (let ask = question; ; ask = `nothing was entered; ${question}`) {
      const answer = await promptHidden(ask, tty, output);
      if (answer.trim() !== '') return answer;
    }
  }
  const text = await readAll(input);
  if (text.trim() === '')
    throw new UsageError('no key given: pass it as an argument, pipe it on standard input, or run in a terminal to be prompted');
  return text;
}
