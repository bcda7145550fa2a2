/**
 * Reading a secret: piped standard input, or a prompt that does not echo on a terminal.
 */
import type { Readable } from 'node:stream';
import { text as readAll } from 'node:stream/consumers';
import type { ReadStream } from 'node:tty';
import { TriggerError, UsageError } from '../errors.js';

function promptHidden(question: string, input: ReadStream, output: NodeJS.WritableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    output.write(question);
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const finish = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.removeListener('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') {
          return finish(new TriggerError('interrupted', 'cancelled; no key was saved'));
        }
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else answer += char;
      }
    };
    input.on('data', onData);
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
  if (text.trim() === '') {
    throw new UsageError('no key given: pass it as an argument, pipe it on standard input, or run in a terminal to be prompted');
  }
  return text;
}
