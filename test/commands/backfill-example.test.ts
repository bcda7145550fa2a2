/**
 * The README's "Try it with the emulator": `trigger batch examples/warehouse-export --columns
 * userId=user_id,triggerId=event_name,value=amount`. The example folder holds its own README.md,
 * which the folder reader took as the first part file (a CSV whose header is its first line).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

describe('the example export folder of the README', () => {
  it('is sent as the README says: every row, Bob with every digit', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = path.join(ROOT, 'examples', 'warehouse-export');
    const failed = path.join(sandbox.home, 'f.csv');
    const result = await runCommand(
      ['batch', folder, '--columns', 'userId=user_id,triggerId=event_name,value=amount', '--failed', failed],
      sandbox.env,
    );
    // Was: exit 2 "the CSV header (line 1) has no event_name column (its columns: # A warehouse export,  as `trigger batch` reads it)".
    expect(result.stderr).not.toContain('has no event_name column');
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.body)).toContain('{"value":12345678901234567890.25}');
  });
});
