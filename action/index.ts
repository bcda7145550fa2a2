/** The Action's entry point, bundled into action/dist/index.cjs (see main.ts). */
import './guard.js'; // first: SIGUSR1 must not open the inspector while the key is in the environment
import { reportThrown, run } from './main.js';

run().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportThrown(error, process.stderr);
  },
);
