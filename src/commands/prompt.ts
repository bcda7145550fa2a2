/**
 * Reading a secret: piped standard input, or a prompt that does not echo on a terminal.
 */
import { text as readAll } from 'node:stream/consumers';
import { TriggerError, UsageError } from '../errors.js';

function promptHidden(question: string, output: NodeJS.WritableStream): Promise<string> {
  const input = process.stdin;
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

/** `output`: where the prompt is written (the Output's terminal, stderr). */
export async function readSecret(question: string, output: NodeJS.WritableStream = process.stderr): Promise<string> {
  if (process.stdin.isTTY) {
    // An empty answer (Enter pressed too soon) asks again, as `gh auth login` does.
    for (let answer = await promptHidden(question, output); ; answer = await promptHidden(`nothing was entered; ${question}`, output)) {
      if (answer.trim() !== '') return answer;
    }
  }
  const text = await readAll(process.stdin);
  if (text.trim() === '') {
    throw new UsageError('no key given: pass it as an argument, pipe it on standard input, or run in a terminal to be prompted');
  }
  return text;
}
