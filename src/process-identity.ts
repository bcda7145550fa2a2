/**
 * Who holds a lock, and whether it still runs: the one judgement both locks make (the settings lock,
 * src/settings/lock.ts, and a batch's journal and failed file, src/batch/lock.ts). A lock is judged
 * by its holder's process, never by a clock: a clock ahead of the file system (an NFS home, an NTP
 * step) made mtime-based locks steal live ones.
 */
import fs from 'node:fs';
import os from 'node:os';

/** A process as a lock records it. */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /** Linux: the process's start time in clock ticks since boot, so a reused pid is not taken for it. */
  start?: string | undefined;
  /** Linux: the pid namespace, so a pid from another container is not judged here. */
  pidns?: string | undefined;
}

/** Linux: a process's state and start time from /proc (undefined elsewhere, or when hidden). */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields 3 (state) and 22 (starttime); the command name before them may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return undefined;
  }
}

function pidNamespace(): string | undefined {
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

let self: ProcessIdentity | undefined;

/** This process, as a lock records it. */
export function thisProcess(): ProcessIdentity {
  if (self) return self;
  const identity: ProcessIdentity = { pid: process.pid, host: os.hostname() };
  const start = procStat(process.pid)?.start;
  if (start !== undefined) identity.start = start;
  const pidns = pidNamespace();
  if (pidns !== undefined) identity.pidns = pidns;
  return (self = identity);
}

/**
 * Where a holder runs, when not where this process does: "on <host>" or "in another container".
 * Such a holder cannot be judged from here.
 */
export function elsewhere(holder: Pick<ProcessIdentity, 'host' | 'pidns'>): string | undefined {
  const here = thisProcess();
  if (holder.host !== here.host) return `on ${holder.host}`;
  if (holder.pidns !== undefined && here.pidns !== undefined && holder.pidns !== here.pidns) return 'in another container';
  return undefined;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // it runs, as another user
  }
}

/**
 * Whether a process on this machine is the one a lock names: it runs (a zombie has ended), and where
 * the start time was recorded, it is the same (else the pid was reused). What cannot be read proves
 * nothing either way, so the holder is taken to live.
 */
export function stillRuns(pid: number, recordedStart: string | undefined): boolean {
  if (!running(pid)) return false;
  const now = procStat(pid);
  if (now === undefined) return true;
  return now.state !== 'Z' && (recordedStart === undefined || now.start === recordedStart);
}
