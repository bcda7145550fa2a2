/**
 * Runs the composite action in action.yml the way a GitHub runner would, offline: each step's `run`
 * in bash (-eo pipefail) with its `env`, after substituting the only expressions the action may use
 * (inputs.*, github.action_path, runner.temp; any other fails the test), with GITHUB_OUTPUT,
 * GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY in temporary files. Outputs are read from each
 * step's GITHUB_OUTPUT (both name=value and heredoc forms) and mapped through the action's outputs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './cli.js';

interface ActionYaml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; name?: string; shell: string; run: string; env?: Record<string, string> }> };
}

export interface ActionRun {
  /** The exit code of the step that failed, or 0. */
  code: number;
  outputs: Record<string, string>;
  stdout: string;
  stderr: string;
  temp: string;
  summary: string;
}

export function loadAction(): ActionYaml {
  return parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as ActionYaml;
}

function substitute(text: string, inputs: Record<string, string>, action: ActionYaml, temp: string): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) {
      const name = input[1]!;
      if (!(name in action.inputs)) throw new Error(`the action uses an input it does not declare: ${name}`);
      return inputs[name] ?? action.inputs[name]?.default ?? '';
    }
    if (expression === 'github.action_path') return ROOT;
    if (expression === 'runner.temp') return temp;
    throw new Error(`the action's steps may only use inputs.*, github.action_path and runner.temp, not ${expression}`);
  });
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

function runStep(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

export async function runAction(inputs: Record<string, string>, baseEnv: NodeJS.ProcessEnv): Promise<ActionRun> {
  const action = loadAction();
  if (action.runs.using !== 'composite') throw new Error('not a composite action');
  for (const [name, spec] of Object.entries(action.inputs)) {
    if (spec.required && !inputs[name]) throw new Error(`input ${name} is required`);
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-action-'));
  const files = Object.fromEntries(['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY'].map((name) => [name, path.join(temp, name)]));
  for (const file of Object.values(files)) fs.writeFileSync(file, '');
  const stepOutputs: Record<string, Record<string, string>> = {};
  let stdout = '';
  let stderr = '';
  let code = 0;
  for (const [index, step] of action.runs.steps.entries()) {
    if (step.shell !== 'bash') throw new Error(`step ${index + 1} must run in bash`);
    const output = path.join(temp, `GITHUB_OUTPUT_${index}`);
    fs.writeFileSync(output, '');
    const env: NodeJS.ProcessEnv = { ...baseEnv, ...files, GITHUB_OUTPUT: output, GITHUB_ACTIONS: 'true', RUNNER_TEMP: temp };
    for (const [name, value] of Object.entries(step.env ?? {})) env[name] = substitute(String(value), inputs, action, temp);
    const result = await runStep(substitute(step.run, inputs, action, temp), env);
    stdout += result.stdout;
    stderr += result.stderr;
    if (step.id) stepOutputs[step.id] = parseOutputFile(fs.readFileSync(output, 'utf8'));
    if (result.code !== 0) {
      code = result.code;
      break;
    }
  }
  const outputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.outputs)) {
    const ref = /^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$/.exec(spec.value);
    if (!ref) throw new Error(`output ${name} must be \${{ steps.<id>.outputs.<name> }}`);
    outputs[name] = stepOutputs[ref[1]!]?.[ref[2]!] ?? '';
  }
  return { code, outputs, stdout, stderr, temp, summary: fs.readFileSync(files.GITHUB_STEP_SUMMARY!, 'utf8') };
}
