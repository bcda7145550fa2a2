/**
 * A batch whose journal is in a shared sticky folder (/tmp), where another user has a file at the name the lock's temporary file had
 * (`.j.journal.lock.<pid>.tmp`, foreseeable: pids are handed out in turn). This user cannot remove it, and the batch was exit 2 with
 * "a file is in the way (part of the path is a file, not a folder)" (review24b F6). The temporary name is now one nobody can foresee.
 * As another user than root, so the sticky folder's rule holds (root may remove anyone's file).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_KEY, sandbox, type Sandbox } from '../helpers/cli.js';
import { installForOtherUser } from '../helpers/other-user.js';
import { startServer, type TestServer } from '../helpers/server.js';

let box: Sandbox;
let server: TestServer;
beforeEach(async () => {
  server = await startServer();
  box = sandbox({ TRIGGER_API_KEY: TEST_KEY, TRIGGER_BASE_URL: server.url });
});
afterEach(async () => {
  await server.close();
  box.cleanup();
});

const USER = 65534; // nobody

it.skipIf(process.getuid?.() !== 0)("another user's file at the lock's old temporary name does not block the batch", async (ctx) => {
  const install = installForOtherUser({ uid: USER, gid: USER });
  if ('why' in install) return ctx.skip(install.why);
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-sticky-'));
  try {
    fs.chmodSync(base, 0o755);
    const [shared, home] = [path.join(base, 'shared'), path.join(base, 'home')];
    fs.mkdirSync(shared, { mode: 0o755 });
    fs.chmodSync(shared, 0o1777); // as /tmp: anyone may make files, each removes only their own
    fs.mkdirSync(home, { mode: 0o755 });
    fs.chownSync(home, USER, USER);
    const rows = path.join(home, 'rows.csv');
    fs.writeFileSync(rows, 'triggerId,userId\nt,u1\nt,u2\n', { mode: 0o644 });
    const env = {
      ...box.env,
      ...{ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') },
      TRIGGER_CONFIG_DIR: path.join(home, 'config'),
    };
    const args = ['batch', rows, '--journal', path.join(shared, 'j.journal'), '--failed', path.join(home, 'f.csv')];
    // The shell waits for a line, then becomes the batch (exec keeps its pid): the name is planted with the pid the batch will have.
    const child = spawn('sh', ['-c', 'read go && exec "$0" "$@"', install.node, install.bin, ...args], {
      ...{ env, cwd: home, uid: USER, gid: USER },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    fs.writeFileSync(path.join(shared, `.j.journal.lock.${child.pid}.tmp`), 'root was here\n', { mode: 0o644 }); // root's, not the user's
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout!.resume();
    child.stdin!.end('go\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // Was: exit 2, "cannot write the journal .../j.journal: a file is in the way (part of the path is a file, not a folder)", 0 sent.
    expect({ code, sent: server.requests.length, stderr }).toEqual({ code: 0, sent: 2, stderr: '' });
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
    install.cleanup();
  }
});
