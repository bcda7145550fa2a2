/**
 * Catalogs within the 16 MiB limit but with hundreds of thousands of triggers: what list and the
 * checks do with them must not depend on how many arguments one call can take.
 * In-process rather than in test:fast: building and checking 200,000 triggers takes seconds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/catalog/load.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';

let sandbox: CommandSandbox;
useCommandServer((_server, b) => (sandbox = b));

const N = 200_000;

describe('a catalog of 200,000 triggers', () => {
  it('with a bound too small for a double on each: every one is a problem on its line, not a crash', () => {
    const text = `{"triggers": {\n${Array.from({ length: N }, (_, i) => `"t${i}": {"min": 1e-400}`).join(',\n')}\n}}`;
    const { data, problems } = parseCatalog(text);
    expect(data).toBeUndefined();
    expect(problems).toHaveLength(N);
    expect(problems[N - 1]).toEqual({
      message: '1e-400 is too small for a number: a double reads it as 0 (write 0 if that is meant)',
      line: N + 1,
    });
  });

  it('triggers list prints each of them, exit 0', async () => {
    const dir = path.join(sandbox.home, 'large');
    fs.mkdirSync(dir, { recursive: true });
    const triggers = Object.fromEntries(Array.from({ length: N }, (_, i) => [`t${i}`, { name: `Trigger ${i}` }]));
    fs.writeFileSync(path.join(dir, 'triggers.json'), JSON.stringify({ triggers }));
    const result = await runCommand(['triggers', 'list'], sandbox.env, dir);
    expect(result.stderr).toContain(`: ${N} triggers`);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(N);
    expect(lines[N - 1]).toMatch(/^t199999 +Trigger 199999 +value optional$/);
  });
});
