/**
 * First, before anything reads the API key (the runner put it in INPUT_API-KEY): Node opens its
 * inspector, which any local user can connect to and read process.env from, on SIGUSR1 unless the
 * process has a SIGUSR1 listener of its own. The same guard as bin/trigger.cjs: the signal is taken
 * and ignored, and an inspector a signal opened during Node's start-up is closed again.
 */
const node = process as NodeJS.Process & { _debugEnd?: () => void };
if (process.platform !== 'win32') {
  process.on('SIGUSR1', () => {});
  const options = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  const asked = /--inspect(?:-brk|-wait)?(?:[=\s]|$)/.test(options);
  if (!asked && typeof node._debugEnd === 'function') {
    node._debugEnd();
    setImmediate(() => node._debugEnd?.());
  }
}
