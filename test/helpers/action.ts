/**
 * Runs the GitHub Action (action.yml) the way a runner runs a JavaScript action, offline: from a plain
 * `git clone` of a commit (so nothing that git ignores, no node_modules, no dist/), with node running
 * `runs.main`, every input as an INPUT_<NAME> variable (upper-cased, hyphens kept, defaults filled
 * in), and GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY as files in a temporary folder.
 *
 * The commit is the working tree as it stands (built in a scratch repository with its own index, so
 * the project's own git index and objects are left alone), so uncommitted work is tested too.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './cli.js';

export interface ActionYaml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value?: string }>;
  runs: { using: string; main: string };
}

export interface ActionRun {
  code: number | null;
  outputs: Record<string, string>;
  /** The `::add-mask::<key>` lines the step opened its stdout with: the runner's protocol, the one place a key is written raw. */
  masks: string[];
  /** The step log: what the action wrote to stdout (after those lines) and stderr. */
  stdout: string;
  stderr: string;
  /** The GITHUB_OUTPUT file as written. */
  outputFile: string;
  summary: string;
}

export function loadAction(dir: string = ROOT): ActionYaml {
  return parse(fs.readFileSync(path.join(dir, 'action.yml'), 'utf8')) as ActionYaml;
}

/** A plain clone of a commit holding the working tree; returns its folder and a cleanup. */
export function cloneWorkingTree(): { dir: string; cleanup: () => void } {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-action-clone-'));
  const store = path.join(scratch, 'origin.git');
  const git = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    execFileSync('git', args, {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: scratch,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'test',
        GIT_AUTHOR_EMAIL: 'test@example.invalid',
        GIT_COMMITTER_NAME: 'test',
        GIT_COMMITTER_EMAIL: 'test@example.invalid',
        ...env,
      },
    }).trim();
  git(['init', '-q', '--bare', store]);
  const tree = { GIT_DIR: store, GIT_WORK_TREE: ROOT, GIT_INDEX_FILE: path.join(scratch, 'index') };
  git(['add', '-A'], tree);
  const commit = git(['commit-tree', git(['write-tree'], tree), '-m', 'the working tree'], tree);
  git(['update-ref', 'refs/heads/main', commit], { GIT_DIR: store });
  git(['symbolic-ref', 'HEAD', 'refs/heads/main'], { GIT_DIR: store });
  const dir = path.join(scratch, 'action');
  git(['clone', '-q', store, dir]);
  return { dir, cleanup: () => fs.rmSync(scratch, { recursive: true, force: true }) };
}

/** Parses a GITHUB_OUTPUT file: name=value lines and name<<DELIMITER heredocs. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) value.push(lines[i]!);
      outputs[heredoc[1]!] = value.join('\n');
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

/** A step's stdout as masks (its leading ::add-mask:: lines, which the runner takes out of the log) and the rest. */
export function splitMasks(stdout: string): { masks: string[]; stdout: string } {
  const masks = /^(?:::add-mask::.*\n)*/.exec(stdout)![0];
  return { masks: masks.split('\n').filter(Boolean), stdout: stdout.slice(masks.length) };
}

/** The variable a runner sets for an input (as @actions/core reads it). */
export const inputVariable = (name: string) => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;

export interface RunActionOptions {
  /** The job's environment (the sandbox's, plus any TRIGGER_* the job sets). */
  env: NodeJS.ProcessEnv;
  /** The checkout of the action (cloneWorkingTree().dir). */
  actionDir: string;
  /** The job's working folder; a temporary one when not given. */
  workspace?: string;
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
}

export async function runAction(inputs: Record<string, string>, options: RunActionOptions): Promise<ActionRun> {
  const action = loadAction(options.actionDir);
  if (action.runs.using !== 'node24') throw new Error(`runs.using is ${action.runs.using}, not node24`);
  for (const name of Object.keys(inputs)) if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-action-run-'));
  const files = Object.fromEntries(
    ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY'].map((name) => [name, path.join(temp, name)]),
  );
  for (const file of Object.values(files)) fs.writeFileSync(file, '');
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    ...files,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    RUNNER_TEMP: temp,
    GITHUB_ACTION_PATH: options.actionDir,
    GITHUB_WORKSPACE: options.workspace ?? temp,
  };
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = inputs[name] ?? spec.default;
    if (value !== undefined) env[inputVariable(name)] = value;
  }
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(options.actionDir, action.runs.main)], {
      env,
      cwd: options.workspace ?? temp,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    options.onSpawn?.(child);
  });
  const outputFile = fs.readFileSync(files.GITHUB_OUTPUT!, 'utf8');
  const summary = fs.readFileSync(files.GITHUB_STEP_SUMMARY!, 'utf8');
  fs.rmSync(temp, { recursive: true, force: true });
  return { ...result, ...splitMasks(result.stdout), outputs: parseOutputFile(outputFile), outputFile, summary };
}
