/**
 * Backfills as warehouses export them, in-process against a real server on 127.0.0.1: folders of
 * gzip part files, Parquet with every numeric type (fixtures written by hyparquet-writer, see
 * test/fixtures/backfill/make.mjs), zstd, --columns, rows named by file and line, files that are not
 * what their names say.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openParquet } from '../../src/batch/parquet.js';
import { parseColumns, type Row } from '../../src/batch/rows.js';
import { ROOT } from '../helpers/cli.js';
import { checkOf, halfGzip } from '../helpers/batch.js';
import { runCommand, useCommandServer, type CommandSandbox } from '../helpers/in-process.js';
import { json, type TestServer } from '../helpers/server.js';

let server: TestServer;
let sandbox: CommandSandbox;
useCommandServer((s, b) => ([server, sandbox] = [s, b]));

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'backfill');
const fixture = (name: string) => path.join(FIXTURES, name);
const at = (name: string) => path.join(sandbox.home, name);
const userOf = (url: string) => decodeURIComponent(url.split('/')[5] ?? '');
const received = () => server.requests.map((r) => `${userOf(r.url)} ${r.body}`).sort();
const WAREHOUSE = 'userId=user_id,triggerId=event_name,value=amount';

describe('Parquet: the value column sent with its exact digits, whatever its type', () => {
  it.each([
    ['i32', ['{"value":2147483647}', '{"value":-2147483648}', '{"value":0}', '{"value":7}']],
    ['i64', ['{"value":9007199254740993}', '{"value":-9223372036854775808}', '{"value":9223372036854775807}', '{"value":0}']],
    ['u64', ['{"value":18446744073709551615}', '{"value":1}', '{"value":0}', '{"value":42}']],
    ['f32', ['{"value":0.1}', '{"value":1.5}', '{"value":-3.25}', '{"value":16777216}']],
    ['f64', ['{"value":0.1}', '{"value":1e+21}', '{"value":-5e-324}', '{"value":123456789.125}']],
    [
      'dec38',
      [
        '{"value":12345678901234567890123456789.012345678}',
        '{"value":-99999999999999999999999999999.999999999}',
        '{"value":0.000000001}',
        '{"value":1.500000000}',
      ],
    ],
    ['dec18', ['{"value":9999999999999999.99}', '{"value":-0.01}', '{"value":0.00}', '{"value":123.45}']],
    ['dec9', ['{"value":123456.789}', '{"value":-0.005}', '{"value":0.000}', '{"value":1.000}']],
  ])('%s: every row of three row groups, a null sends {}', async (column, values) => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await runCommand(
      ['batch', fixture('numbers.parquet'), '--columns', `userId=user_id,triggerId=event_name,value=${column}`, '--concurrency', '2'],
      sandbox.env,
    );
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(5);
    const byUser = Object.fromEntries(server.requests.map((r) => [userOf(r.url), r.body]));
    expect([byUser.u1, byUser.u2, byUser.u3, byUser.u4]).toEqual(values);
    expect(byUser.u5).toBe('{}');
    expect(server.requests.find((r) => userOf(r.url) === 'u3')!.url).toContain('/triggers/refund/');
  });

  it('a truncated footer: exit 2 naming the file, nothing sent', async () => {
    const result = await runCommand(['batch', fixture('export'), fixture('truncated.parquet'), '--columns', WAREHOUSE], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${fixture('truncated.parquet')} is not a readable Parquet file`);
    expect(server.requests).toHaveLength(0);
  });

  it('a column --columns names that the file lacks: exit 2 listing its columns', async () => {
    const result = await runCommand(['batch', fixture('numbers.parquet'), '--columns', 'userId=user,triggerId=event_name'], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/has no user column \(its columns: user_id, event_name, i32/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('Parquet: a row group bigger than one slice of rows', () => {
  it('hands on every row once, in order, with its row number and exact digits, across slices and pages', async () => {
    // One row group of 70,000 rows in many small pages: the reader decodes it a slice at a time.
    const rows = 70_000;
    const file = at('big-group.parquet');
    const { parquetWriteFile } = await import('hyparquet-writer');
    parquetWriteFile({
      filename: file,
      rowGroupSize: rows,
      pageSize: 4096,
      schema: [
        { name: 'root', num_children: 3 },
        { name: 'user_id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
        { name: 'event_name', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        { name: 'amount', type: 'INT64', converted_type: 'DECIMAL', precision: 18, scale: 2, repetition_type: 'OPTIONAL' },
      ],
      columnData: [
        // Row 65,537 (the first of the second slice) has no user: invalid, named by its row number.
        { name: 'user_id', data: Array.from({ length: rows }, (_, i) => (i === 65_536 ? null : `u${i}`)) },
        { name: 'event_name', data: Array.from({ length: rows }, (_, i) => (i % 2 ? 'refund' : 'purchase')) },
        { name: 'amount', data: Array.from({ length: rows }, (_, i) => (i % 7 === 3 ? null : 900719925474099300n + BigInt(i))) },
      ],
    });
    // The reader itself, not a dry run of the command: the slices are the reader's, and writing and
    // parsing 70,000 --json lines cost more than reading the file (the JSON of a Parquet row is the
    // type cases' above). What a dry run would print of each row is what the reader hands on.
    const options = { columns: parseColumns(WAREHOUSE) };
    const read: Row[] = [];
    for await (const chunk of (await openParquet(file, 'big-group.parquet', options))(options).rows) read.push(...chunk);
    expect(read).toHaveLength(rows);
    const wrong: string[] = [];
    read.forEach((row, i) => {
      const amount = `${9007199254740993n + BigInt(Math.floor(i / 100))}.${String(i % 100).padStart(2, '0')}`;
      const expected =
        i === 65_536
          ? { line: 65_537, ok: false }
          : { line: i + 1, ok: true, triggerId: i % 2 ? 'refund' : 'purchase', userId: `u${i}`, value: i % 7 === 3 ? undefined : amount };
      const got =
        i === 65_536
          ? { line: row.line, ok: row.invalid === undefined }
          : { line: row.line, ok: row.invalid === undefined, triggerId: row.triggerId, userId: row.userId, value: row.value };
      if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${JSON.stringify(expected)} but got ${JSON.stringify(got)}`);
    });
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});

describe('a folder of gzip part files', () => {
  it('reads its part files in name order, skips _SUCCESS and hidden files, and maps the columns', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await runCommand(['batch', fixture('export'), '--columns', WAREHOUSE, '--concurrency', '1'], sandbox.env);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => `${userOf(r.url)} ${r.body}`)).toEqual([
      'alice {"value":9.99}',
      'bob {"value":12345678901234567890.5}',
      'carol {}',
      'dave {"value":1}',
    ]);
  });

  it('names each row by file and line: the failed file has a file column, --json a file field', async () => {
    server.handle((req, res) => (userOf(req.url) === 'bob' ? json(res, 422, { error: 'no' }) : json(res, 200, { success: true })));
    const second = at('more.csv');
    fs.writeFileSync(second, 'user_id,event_name,amount\nerin,purchase,abc\n');
    const failed = at('failed.csv');
    const result = await runCommand(
      ['batch', fixture('export'), second, '--columns', WAREHOUSE, '--json', '--failed', failed],
      sandbox.env,
    );
    expect(result.code).toBe(1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file?: string; line: number; ok: boolean });
    expect(lines.find((l) => !l.ok && l.line === 3 && l.file === path.join(fixture('export'), 'part-00000.csv.gz'))).toBeDefined();
    expect(lines.find((l) => !l.ok && l.line === 2 && l.file === second)).toBeDefined();
    expect(lines.every((l) => typeof l.file === 'string')).toBe(true);
    const kept = fs.readFileSync(failed, 'utf8').trim().split('\n');
    expect(kept[0]).toBe('triggerId,userId,value,file,error');
    expect(kept.slice(1).sort()).toEqual([
      `purchase,bob,12345678901234567890.5,${path.join(fixture('export'), 'part-00000.csv.gz')},line 3: the service refused the event: 422 Unprocessable Content: no`,
      `purchase,erin,abc,${second},"line 2: invalid, not sent: value must be a decimal number such as 9.99, -3 or 1e3; got ""abc"""`,
    ]);
    // The failed file replays as it is, without --columns.
    server.handle((_req, res) => json(res, 200, { success: true }));
    const before = server.requests.length;
    const replay = await runCommand(['batch', failed, '--failed', at('again.csv')], sandbox.env);
    expect(server.requests.slice(before).map((r) => userOf(r.url))).toEqual(['bob']);
    expect(replay.code).toBe(1); // erin's value is still not a number
  });

  it('a .gz that is not gzip: exit 2 naming the file, nothing sent', async () => {
    const result = await runCommand(['batch', fixture('export'), fixture('not-gzip.csv.gz'), '--columns', WAREHOUSE], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${fixture('not-gzip.csv.gz')} is not gzip data (its first bytes are 74 72 69 67)`);
    expect(server.requests).toHaveLength(0);
  });

  it('gzip data hidden behind a .csv name: exit 2 saying what it is', async () => {
    const hidden = at('part.csv');
    fs.writeFileSync(hidden, zlib.gzipSync('triggerId,userId\nt,a\n'));
    const result = await runCommand(['batch', hidden], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${hidden} is gzip-compressed, but its name does not end in .gz`);
    expect(server.requests).toHaveLength(0);
  });

  it('damage found midway ends like a stop: the rows read are sent or kept, the summary names the file and the line, exit 2', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    // 40 KB of rows as before, in 500 long rows rather than 5,000 short ones: each row sent is a request.
    const cut = at('cut.csv.gz');
    halfGzip(cut);
    // Run in the file's folder: the rest's journal is named as if beside it (a file elsewhere is named by its folder too).
    const result = await runCommand(['batch', cut, '--concurrency', '2', '--failed', at('failed.csv')], sandbox.env, sandbox.home);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`stopping: ${cut} could not be read past line`);
    const line = Number(/is damaged after line (\d+)/.exec(result.stdout)?.[1]);
    const rest = `gzip -t ${cut} && trigger batch ${cut} --after-line ${line}:${checkOf(result.stdout + result.stderr)} --journal cut-rest.journal --resume`;
    expect(result.stdout).toContain(`then send them with: ${rest} --failed cut-rest-failed.csv`);
    const users = server.requests.map((r) => userOf(r.url).split('-')[0]!);
    const kept = (fs.readFileSync(at('failed.csv'), 'utf8').match(/^t,u\d+/gm) ?? []).map((k) => k.slice(2));
    expect(users.length).toBeGreaterThan(0);
    // Every row read (lines 2 to `line`) is sent or kept, once; the rows after it are the ones the summary names.
    expect(new Set([...users, ...kept]).size).toBe(line - 1);
    expect(users.length + kept.length).toBe(line - 1);
    // A dry run says so too: not a ✔ over an exit 2.
    const dry = await runCommand(['batch', cut, '--dry-run'], sandbox.env);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain(`✖ dry run: ${line - 1} of ${line - 1} rows can be sent`);
    expect(dry.stdout).toContain(`${cut} is damaged after line ${line}`);
  });
});

describe("a CSV whose lines end in CR alone (an old Mac's export)", () => {
  it('is read line by line, compressed too: every row sent, a refused one kept under its own line, exit 1', async () => {
    server.handle((req, res) => (req.url.includes('/b/') ? json(res, 422, { error: 'no' }) : json(res, 200, { success: true })));
    const rows = 'triggerId,userId,value\rt,a,1\rt,b,2\rt,c,3\r';
    fs.writeFileSync(at('mac.csv.gz'), zlib.gzipSync(rows));
    const result = await runCommand(['batch', at('mac.csv.gz'), '--failed', at('failed.csv')], sandbox.env);
    // Was: exit 0 and nothing sent, the whole file read as one header line.
    expect(result.code).toBe(1);
    expect(received()).toEqual(['a {"value":1}', 'b {"value":2}', 'c {"value":3}']);
    expect(fs.readFileSync(at('failed.csv'), 'utf8')).toMatch(/^t,b,2,line 3: the service refused the event: 422/m);
  });
});

describe('zstd', () => {
  const hasZstd = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function';
  it.runIf(hasZstd)('a .ndjson.zst file is read (its exact digits kept)', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const result = await runCommand(['batch', fixture('rows.ndjson.zst'), '--columns', WAREHOUSE], sandbox.env);
    expect(result.code).toBe(0);
    expect(received()).toEqual(['zed {"value":9007199254740993}', 'zoe {"value":0.1}']);
  });
  it.runIf(!hasZstd)('a Node without zstd says so and which Node has it: exit 2, nothing sent', async () => {
    const result = await runCommand(['batch', fixture('rows.ndjson.zst'), '--columns', WAREHOUSE], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`is zstd-compressed, and Node ${process.version} has no zstd (Node 22.15 and 24 have it)`);
    expect(server.requests).toHaveLength(0);
  });
  it.runIf(!hasZstd)("a folder's .zst part: the hint decompresses it in place, not into a pipe that sends that part alone", async () => {
    const folder = path.join(sandbox.home, 'export');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'part-0.csv'), 'triggerId,userId\nt,a\n');
    fs.copyFileSync(fixture('rows.ndjson.zst'), path.join(folder, 'part-1.ndjson.zst'));
    const result = await runCommand(['batch', folder, '--columns', WAREHOUSE], sandbox.env);
    expect(result.code).toBe(2);
    // Was: "zstd -dc export/part-1.ndjson.zst | trigger batch -": part-0's rows left out.
    expect(result.stderr).toContain(`or decompress it first, in place: zstd -d --rm ${path.join(folder, 'part-1.ndjson.zst')}`);
    expect(server.requests).toHaveLength(0);
  });
});

describe('the command folder', () => {
  it('relative inputs, failed file and journal are the cwd given, not the process folder', async () => {
    server.handle((_req, res) => json(res, 422, { error: 'no' }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'work-'));
    fs.writeFileSync(path.join(folder, 'rows.csv'), 'triggerId,userId\nt,a\n');
    const result = await runCommand(['batch', 'rows.csv', '--failed', 'kept.csv', '--journal', 'b.journal'], sandbox.env, folder);
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(fs.readFileSync(path.join(folder, 'kept.csv'), 'utf8')).toContain('t,a,line 2: the service refused the event: 422');
    expect(fs.existsSync(path.join(folder, 'b.journal'))).toBe(true);
  });

  it('--failed inside the input folder is refused: a later run would read it as input', async () => {
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    fs.writeFileSync(path.join(folder, 'part-0.csv'), 'triggerId,userId\nt,a\n');
    const result = await runCommand(['batch', folder, '--failed', path.join(folder, 'failed.csv')], sandbox.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is in the input folder');
    expect(server.requests).toHaveLength(0);
  });
});

describe('the journal across files', () => {
  it('--resume refuses a changed file list and a changed file', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    fs.writeFileSync(path.join(folder, 'part-0.csv'), 'triggerId,userId\nt,a\n');
    fs.writeFileSync(path.join(folder, 'part-1.csv'), 'triggerId,userId\nt,b\n');
    const journal = at('b.journal');
    expect((await runCommand(['batch', folder, '--journal', journal], sandbox.env)).code).toBe(0);
    fs.writeFileSync(path.join(folder, 'part-2.csv'), 'triggerId,userId\nt,c\n');
    const more = await runCommand(['batch', folder, '--journal', journal, '--resume'], sandbox.env);
    expect(more.code).toBe(2);
    expect(more.stderr).toContain('was made for 2 files');
    fs.rmSync(path.join(folder, 'part-2.csv'));
    fs.writeFileSync(path.join(folder, 'part-1.csv'), 'triggerId,userId\nt,B\n');
    const changed = await runCommand(['batch', folder, '--journal', journal, '--resume'], sandbox.env);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('(file 2 of 2)');
    expect(server.requests).toHaveLength(2);
  });

  it('--shard splits the rows of all files: two shards send each row once', async () => {
    server.handle((_req, res) => json(res, 200, { success: true }));
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    for (let p = 0; p < 3; p++)
      fs.writeFileSync(
        path.join(folder, `part-${p}.csv.gz`),
        zlib.gzipSync(`triggerId,userId\n${Array.from({ length: 50 }, (_, i) => `t,p${p}u${i}`).join('\n')}\n`),
      );
    const one = await runCommand(['batch', folder, '--shard', '1/2'], sandbox.env);
    const firstShard = server.requests.length;
    const two = await runCommand(['batch', folder, '--shard', '2/2'], sandbox.env);
    expect([one.code, two.code]).toEqual([0, 0]);
    const users = server.requests.map((r) => userOf(r.url));
    expect(new Set(users).size).toBe(150);
    expect(users).toHaveLength(150);
    expect(firstShard).toBeGreaterThan(30);
    expect(firstShard).toBeLessThan(120);
  });
});

describe('triggers check and import take the same inputs', () => {
  it('check names file:line for a folder with --columns; import reads Parquet', async () => {
    const catalog = at('triggers.json');
    const imported = await runCommand(
      ['triggers', 'import', fixture('numbers.parquet'), '--columns', 'userId=user_id,triggerId=event_name', '--catalog', catalog],
      sandbox.env,
    );
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/imported 2 triggers/);
    const folder = fs.mkdtempSync(path.join(sandbox.home, 'exp-'));
    fs.writeFileSync(path.join(folder, 'part-0.csv.gz'), zlib.gzipSync('user_id,event_name,amount\na,purchase,1\nb,nope,2\n'));
    const checked = await runCommand(['triggers', 'check', folder, '--columns', WAREHOUSE, '--catalog', catalog], sandbox.env);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(`${path.join(folder, 'part-0.csv.gz')}:3:`);
  });
});
