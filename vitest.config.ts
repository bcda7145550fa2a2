import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Time limits catch a test that hangs; they are no measure of speed. A spawned test runs the
    // binary up to a dozen times, which on a loaded 2-core machine took over 20 s: a limit that low
    // failed tests at random, as an assertion on elapsed time would.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end tests spawn the built binary; two cores here, so keep the pool small.
    maxWorkers: 2,
    // vitest's summary counts skipped tests; this one says what each skip was for (a package this
    // machine lacks, with its apt-get line: test/helpers/needs.ts).
    reporters: ['default', './test/helpers/skip-reporter.ts'],
    projects: [
      {
        // npm run test:fast: pure functions and commands run in-process, no build needed (seconds).
        extends: true,
        test: { name: 'fast', include: ['test/unit/**/*.test.ts', 'test/commands/**/*.test.ts', 'test/client/**/*.test.ts'] },
      },
      {
        // Commands in-process against real servers on 127.0.0.1 (the table cases that once spawned the
        // binary): no build and no Node start-up, but real sockets and the waits they test, so kept
        // out of test:fast's budget.
        extends: true,
        test: { name: 'in-process', include: ['test/in-process/**/*.test.ts'] },
      },
      {
        // The built binary, spawned: dist/ is built first when it is missing or older than src/.
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
