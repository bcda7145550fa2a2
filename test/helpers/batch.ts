/**
 * What the batch tests read back: the rows a CSV failed file keeps, and the command a summary printed
 * to carry the batch on; and a server that answers after a delay, so a batch is still running.
 */
import { json, type TestServer } from './server.js';

/** The rows of a CSV failed file's text (triggerId,userId,...,error): each user id with its error. */
export function keptRows(text: string): Array<{ user: string; error: string }> {
  return text
    .trim()
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => ({ user: line.split(',')[1]!, error: line.slice(line.indexOf(',', 2) + 1) }));
}

/** Every answer a 200, after `ms`. */
export function answerSlowly(server: TestServer, ms: number): void {
  server.handle(async (_req, res) => {
    await new Promise((r) => setTimeout(r, ms));
    json(res, 200, { success: true });
  });
}

/**
 * The command a summary printed to send the kept rows or carry the batch on, as the words after
 * `trigger`. The tests name plain paths, so splitting on spaces and dropping quotes gives the words a
 * shell would.
 */
export function printedCommand(output: string): string[] | undefined {
  const command = /(?:send (?:them|it) (?:later )?with|carry the batch on with): trigger (batch .*)$/m.exec(output)?.[1];
  return command
    ?.trim()
    .split(/\s+/)
    .map((word) => word.replace(/^'(.*)'$/, '$1'));
}

/** The user id a request was sent for (its URL is /v1/triggers/<trigger>/users/<user>/...). */
export const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');
/** n user ids: u0, u1, ... */
export const users = (n: number, prefix = 'u') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
/** A CSV of n rows for trigger t, one per user of users(n, prefix). */
export const csvRows = (n: number, prefix = 'u') =>
  `triggerId,userId\n${users(n, prefix)
    .map((user) => `t,${user}`)
    .join('\n')}\n`;
