/** The Action's entry point, bundled into action/dist/index.cjs (see main.ts). */
import './guard.js'; // first: SIGUSR1 must not open the inspector while the key is in the environment
import { githubAnnotation } from '../src/output/render.js';
import { run } from './main.js';

run().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = (error as Error)?.message ?? String(error);
    process.stderr.write(`error: ${message}\n${githubAnnotation(message)}\n`);
    process.exitCode = 70;
  },
);
