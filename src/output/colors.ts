/** Colours by meaning, per stream, chosen here: chalk's default export reads only stdout, ignores NO_COLOR; no colour, no chalk loaded. */

/** Each colour by its meaning, and the chalk style it is. */
const STYLES = { success: 'green', error: 'red', warn: 'yellow', hint: 'cyan', dim: 'dim', bold: 'bold' } as const;

type Colours = Record<keyof typeof STYLES, (text: string) => string>;

export type Palette = Colours & { enabled: boolean };

/** Each meaning's colour, as `style` gives it for the chalk style's name. */
const colours = (style: (name: (typeof STYLES)[keyof Colours]) => (text: string) => string): Colours =>
  Object.fromEntries(Object.entries(STYLES).map(([meaning, name]) => [meaning, style(name)])) as Colours;

export const PLAIN: Palette = { ...colours(() => (text) => text), enabled: false };

/** Whether colour may be wanted: FORCE_COLOR set (chalk reads it itself: 0 turns colour off), else no NO_COLOR and a TTY. */
const wantsColor = (stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv) =>
  env.FORCE_COLOR !== undefined || (!env.NO_COLOR && stream.isTTY === true);

export async function paletteFor(which: 'stdout' | 'stderr', env: NodeJS.ProcessEnv, stream: { isTTY?: boolean }): Promise<Palette> {
  if (!wantsColor(stream, env)) return PLAIN;
  const { default: chalkStdout, chalkStderr } = await import('chalk');
  const chalk = which === 'stdout' ? chalkStdout : chalkStderr;
  if (chalk.level === 0) return PLAIN;
  return { ...colours((name) => chalk[name]), enabled: true };
}
