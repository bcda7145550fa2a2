/**
 * A triggers.json that is a link to a device (/dev/null, /dev/zero: mode 0666) is refused by the
 * trust check first, whose printed fix is `chmod go-w /dev/null`: run as printed (as root, or by an
 * admin who trusts the tool's hint) it takes write access to /dev/null away from every user. The file
 * cannot be a catalog anyway (the contract: a catalog that is not a regular file is unusable), which
 * is what `--catalog` on the same path says ("it is a character device, not a regular file").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';

let sandbox: CommandSandbox;
useCommandServer((_s, b) => (sandbox = b));

describe('a triggers.json that links to a device', () => {
  it.runIf(fs.existsSync('/dev/null') && (fs.statSync('/dev/null').mode & 0o002) !== 0)(
    'is refused as not a regular file, never with a fix that changes the device',
    async () => {
      const dir = path.join(sandbox.home, 'project');
      fs.mkdirSync(dir);
      fs.symlinkSync('/dev/null', path.join(dir, 'triggers.json'));
      const run = await runCommand(['fire', 'purchase', 'alice', '--dry-run'], sandbox.env, dir);
      expect(run.code).toBe(2);
      expect(run.stderr).not.toMatch(/chmod [^\n]*\/dev\/null/);
      expect(run.stderr).toContain('not a regular file');
    },
  );
});
