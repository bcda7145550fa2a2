/**
 * Running the built binary as another user (root only): that user may not be able to read the clone
 * at all (a clone in a home folder, or in a `mktemp -d` folder, is 0700), nor the Node that runs the
 * tests (.ci/run keeps Node 22 and 24 under ~/.cache). So what a run needs is put where every user
 * can read it: bin/, dist/ and package.json copied into a fresh temporary folder (mode 0755, under
 * parents every user can pass through), and the Node binary linked (or copied) there when that user
 * cannot run it where it is.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './cli.js';

export interface OtherUserInstall {
  /** The Node binary that user can run. */
  node: string;
  /** bin/trigger.cjs of the copy. */
  bin: string;
  cleanup(): void;
}

/** Why a folder cannot be reached by other users (an ancestor they cannot pass through), if so. */
function closedAncestor(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if ((fs.statSync(at).mode & 0o001) === 0) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * A copy of the built binary that `uid`/`gid` can run; undefined (with why) where none can be made:
 * a temporary folder others cannot reach.
 */
export function installForOtherUser(ids: { uid: number; gid: number }): OtherUserInstall | { why: string } {
  const closed = closedAncestor(os.tmpdir());
  if (closed) return { why: `other users cannot reach the temporary folder ${os.tmpdir()} (${closed} is not open to them)` };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-other-user-'));
  fs.chmodSync(dir, 0o755);
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    for (const part of ['bin', 'dist']) fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    let node = process.execPath;
    if (spawnSync(node, ['--version'], ids).status !== 0) {
      node = path.join(dir, 'node');
      try {
        fs.linkSync(process.execPath, node); // the same file, reached by a path that user can walk
      } catch {
        fs.copyFileSync(process.execPath, node); // another file system: a copy, with its mode
      }
    }
    const ran = spawnSync(node, ['--version'], ids);
    if (ran.status !== 0) {
      cleanup();
      return { why: `uid ${ids.uid} cannot run Node even from ${dir}: ${String(ran.stderr ?? ran.error)}` };
    }
    return { node, bin: path.join(dir, 'bin', 'trigger.cjs'), cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}
