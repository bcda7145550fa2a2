import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
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
        // The built binary, spawned: dist/ is built first when it is missing or older than src/.
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/global-setup.ts'] },
      },
    ],
  },
});
