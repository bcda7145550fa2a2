import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

// The fast tests that replace a module (vi.mock): each runs in a module graph of its own.
const MOCKING = [
  'test/unit/emulator-key.test.ts',
  'test/unit/keychain-timeout.test.ts',
  'test/unit/catalog-near.test.ts',
  'test/commands/batch-shard-pace.test.ts',
];

/**
 * The files that take longest (seconds each: the mean of Node 20, 22 and 24 in the quiet .ci/run of 56dd4cc on a 2-core
 * machine, 2026-11-29; batch-journal-slow-hash as cut down since, by its ratio at a load of 12). They start first: vitest orders
 * files by the durations of the last run on this machine and, on a fresh clone (CI) that has none, by size, which started a 23 s
 * file near the end and left one worker idle while it ran (a suite of 123-129 s on a fresh clone against 113 s with durations
 * known). A file missing here runs after these, ordered as vitest orders it; a stale entry costs nothing but its place.
 */
const LONGEST_FIRST = [
  'test/e2e/shard-rota.test.ts', // 19.7 (two shards at 20/s: waiting, little CPU)
  'test/e2e/batch-signal-big.test.ts', // 8.4
  'test/in-process/batch-pace.test.ts', // 7.6
  'test/e2e/batch-journal-slow-hash.test.ts', // 12.9 before the child's 2 s passed in 200 ms; about 6.5 since
  'test/in-process/wire-cut-short-words.test.ts', // 4.6
  'test/e2e/printed-where-review.test.ts', // 4.0
  'test/e2e/journal-service.test.ts', // 4.0
  'test/e2e/batch-once.test.ts', // 4.0
  'test/e2e/action.test.ts', // 4.0
  'test/e2e/package.test.ts', // 3.8
  'test/e2e/batch-signal-from.test.ts', // 3.7
  'test/e2e/batch-signal-audit.test.ts', // 3.7
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    // Array.prototype.sort is stable: within a rank, vitest's own order stays.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // Time limits catch a test that hangs; they are no measure of speed. A spawned test runs the
    // binary up to a dozen times, which on a loaded 2-core machine took over 20 s: a limit that low
    // failed tests at random, as an assertion on elapsed time would.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three files at once on two cores: a spawned test spends much of its time waiting (on a server's
    // answer, a terminal's screen, a child's exit), and a third worker fills those waits. On a fresh
    // clone, quiet: 112 s with 3 or 4 workers against 121 s with 2. One number for every project: a
    // project with a maxWorkers of its own runs in a group after the others, not beside them.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
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
        // The built binary, spawned: dist/ is built first when it is missing or older than src/. One
        // module graph per worker too (isolate: false): a fresh worker for each of 37 files cost 0.6 s
        // of CPU a file (the suite is CPU-bound on 2 cores), and no file leaves anything on the process
        // (each closes its servers and sandboxes; runBuilt takes back its listeners and streams).
        extends: true,
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/global-setup.ts'], isolate: false },
      },
    ],
  },
});
