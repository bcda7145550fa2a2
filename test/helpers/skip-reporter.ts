/**
 * A reporter beside vitest's own: after the run, one line per reason that tests were skipped for
 * (the notes of test/helpers/needs.ts: a package missing, with its apt-get line), with the files and
 * how many tests each. vitest's default reporter counts skipped tests but does not say why.
 */
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byNote = new Map<string, Map<string, number>>();
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        if (!note) continue;
        const files = byNote.get(note) ?? new Map<string, number>();
        const file = path.relative(process.cwd(), module.moduleId);
        files.set(file, (files.get(file) ?? 0) + 1);
        byNote.set(note, files);
      }
    }
    if (byNote.size === 0) return;
    const lines = ['', 'Skipped, for what this machine lacks:'];
    for (const [note, files] of byNote) {
      const count = [...files.values()].reduce((a, b) => a + b, 0);
      lines.push(`  ${count} test${count === 1 ? '' : 's'}: ${note}`);
      for (const [file, n] of files) lines.push(`      ${file} (${n})`);
    }
    lines.push('  (TRIGGER_TEST_REQUIRE_ALL=1 fails them instead, as in .ci/run; --reporter=verbose names each)', '');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
