/**
 * What the completion tests complete against: a work folder with a batch file and a catalog of three
 * triggers, and two profiles. For test/e2e/completion.test.ts (real shells), and
 * test/in-process/shells-complete.test.ts and test/commands/complete.test.ts (the same answers in-process).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The profiles set with `config set-base-url <url> --profile <name>`. */
export const PROFILES = [
  ['staging', 'https://staging.example.com'],
  ['prod', 'https://api.example.com'],
] as const;

/** Writes `<home>/work` with events.csv and triggers.json (purchase, promo, signup); returns its path. */
export function writeCompletionWork(home: string): string {
  const work = path.join(home, 'work');
  fs.mkdirSync(work);
  fs.writeFileSync(path.join(work, 'events.csv'), 'triggerId,userId\n');
  fs.writeFileSync(
    path.join(work, 'triggers.json'),
    JSON.stringify({
      triggers: { purchase: { name: 'Purchase completed' }, promo: { name: 'Spring promo' }, signup: { name: 'Signed up' } },
    }),
  );
  return work;
}
