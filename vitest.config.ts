import { defineConfig } from 'vitest/config';

// The fast tests that replace a module (vi.mock): each runs in a module graph of its own.
const MOCKING = ['test/unit/emulator-key.test.ts', 'test/unit/keychain-timeout.test.ts'];

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
        // One module graph for all of them (isolate: false): importing it afresh for each of 60
        // files cost more than the tests themselves. Files that replace a module with vi.mock run
        // isolated in the next project, so their mocks reach no other file.
        extends: true,
        test: {
          name: 'fast',
          include: ['test/unit/**/*.test.ts', 'test/commands/**/*.test.ts', 'test/client/**/*.test.ts'],
          exclude: MOCKING,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'fast-mocks', include: MOCKING },
      },
      {
        // Commands in-process against real servers on 127.0.0.1 (the table cases that once spawned the
        // binary): no build and no Node start-up, but real sockets and the waits they test, so kept
        // out of test:fast's budget. One module graph too (isolate: false): each file starts and
        // closes its own servers.
        extends: true,
        test: { name: 'in-process', include: ['test/in-process/**/*.test.ts'], isolate: false },
      },
      {
        // The built binary, spawned: dist/ is built first when it is missing or older than src/.
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
