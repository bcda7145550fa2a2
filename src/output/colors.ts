/**
 * Colours named by meaning, per stream. chalk's default export looks at stdout only and ignores
 * NO_COLOR, so the decision is made here: FORCE_COLOR wins, then NO_COLOR, then "is it a TTY".
 * When no colour is wanted chalk is not even loaded.
 */
export interface Palette {
  success: (text: string) => string;
  error: (text: string) => string;
  warn: (text: string) => string;
  hint: (text: string) => string;
  dim: (text: string) => string;
  bold: (text: string) => string;
  enabled: boolean;
}

const plain = (text: string) => text;

export const PLAIN: Palette = {
  success: plain,
  error: plain,
  warn: plain,
  hint: plain,
  dim: plain,
  bold: plain,
  enabled: false,
};

export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean | 'auto' {
  if (env.FORCE_COLOR !== undefined) return 'auto'; // chalk reads FORCE_COLOR itself (0 turns colour off)
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true ? 'auto' : false;
}

export async function paletteFor(
  which: 'stdout' | 'stderr',
  env: NodeJS.ProcessEnv = process.env,
  stream: { isTTY?: boolean } = which === 'stdout' ? process.stdout : process.stderr,
): Promise<Palette> {
  if (wantsColor(stream, env) === false) return PLAIN;
  const { default: chalkStdout, chalkStderr } = await import('chalk');
  const chalk = which === 'stdout' ? chalkStdout : chalkStderr;
  if (chalk.level === 0) return PLAIN;
  return {
    success: chalk.green,
    error: chalk.red,
    warn: chalk.yellow,
    hint: chalk.cyan,
    dim: chalk.dim,
    bold: chalk.bold,
    enabled: true,
  };
}
