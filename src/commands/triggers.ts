/** trigger triggers list | show | add | edit | remove | check | import: triggers.json, since the API cannot list or create triggers. */
import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { FORMATS, IMPORT_FORMATS, type Format } from '../batch/formats.js';
import { openInputs } from '../batch/input.js';
import { parseColumns, type ReadOptions } from '../batch/rows.js';
import { parseValue } from '../client/request.js';
import { ConfigError, TriggerError, UsageError } from '../errors.js';
import { CATALOG_FILE_NAME, findCatalog, type FoundCatalog } from '../catalog/find.js';
import { catalogTarget, readCatalogFile } from '../catalog/file.js';
import { ENTRY_FIELDS, idIn, loadCatalog, parseCatalog, spelled, VALUE_RULES } from '../catalog/load.js';
import type { Catalog, CatalogData, TriggerEntry, ValueRule } from '../catalog/load.js';
import { compareDecimal } from '../catalog/decimal.js';
import { rowChecker, TriggerResolver } from '../catalog/resolve.js';
import { newCatalog, saveCatalog, schemaFor, someoneElses, type SchemaPlan } from '../catalog/write.js';
import { writeFileAtomic } from '../atomic-write.js';
import { errnoWords } from '../errno.js';
import type { Output } from '../output/io.js';
import { errorLine, githubAnnotation, printable, shellQuote, shownId } from '../output/render.js';
import { activeProfile } from '../settings/resolve.js';
import type { CatalogOptions, Context } from './shared.js';

/** "1 trigger", "200000 triggers": counts as plain digits. */
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

export type CatalogFlag = CatalogOptions & { profile?: string };

/** The catalog in effect (--catalog, TRIGGER_CATALOG, else found from cwd); exit 2 when there is none, unless it may be created. */
function found(options: CatalogFlag, ctx: Context, create = false): FoundCatalog | undefined {
  const where = findCatalog({ cwd: ctx.cwd, env: ctx.env, flag: options.catalog });
  if (where || create) return where;
  const message = 'no trigger catalog here: no triggers.json in this folder or any parent';
  throw new ConfigError(message, { hint: 'create one with: trigger triggers add <id> --name <name>, or name one with --catalog <file>' });
}

/** What list and show print: the catalog in effect, checked, and the profile whose ids they show. */
function shownCatalog(options: CatalogFlag, ctx: Context) {
  return { catalog: loadCatalog(found(options, ctx)!, { env: ctx.env }), profile: activeProfile(options, ctx.env) };
}

/** A trigger as list and show print it (and --json gives it): every field, null where it is not set. */
function view(key: string, entry: TriggerEntry, profile: string) {
  const unset = { name: null, value: 'optional' as ValueRule, min: null, max: null, deprecated: null, description: null, ids: {} };
  return { id: idIn(key, entry, profile), key, ...unset, ...entry };
}

function ruleText(t: ReturnType<typeof view>): string {
  const bounds = [t.min !== null ? `>= ${t.min}` : '', t.max !== null ? `<= ${t.max}` : ''].filter(Boolean).join(', ');
  return `value ${t.value}${bounds ? ` (${bounds})` : ''}`;
}

export function list(options: CatalogFlag & { json?: boolean }, ctx: Context): void {
  const { catalog, profile } = shownCatalog(options, ctx);
  const views = Object.entries(catalog.data.triggers).map(([key, entry]) => view(key, entry, profile));
  const { io } = ctx;
  if (options.json) return io.json(JSON.stringify({ catalog: catalog.path, profile, triggers: views }));
  io.stderr(io.errColors.dim(`${printable(catalog.path)} (profile ${printable(profile)}): ${count(views.length, 'trigger')}`));
  // The widest id and name, up to 32 and 40, in one loop: not spread into Math.max (200,000 arguments overflow the stack).
  let [width, nameWidth] = [2, 0];
  for (const v of views) {
    width = Math.min(32, Math.max(width, shownId(v.id).length));
    nameWidth = Math.min(40, Math.max(nameWidth, printable(v.name ?? '').length));
  }
  const c = io.outColors;
  for (const v of views) {
    const deprecated = v.deprecated !== null ? ` ${c.warn(`deprecated: ${printable(v.deprecated)}`)}` : '';
    io.stdout(`${c.bold(shownId(v.id).padEnd(width))}  ${printable(v.name ?? '').padEnd(nameWidth)}  ${c.dim(ruleText(v))}${deprecated}`);
  }
}

function lookUp(catalog: Catalog, profile: string, given: string): string {
  const resolution = new TriggerResolver(catalog, profile).resolve(given);
  if (!resolution.ok) throw new UsageError(resolution.message, { hint: 'see them all with: trigger triggers list' });
  return resolution.trigger.key;
}

export function show(id: string, options: CatalogFlag & { json?: boolean }, ctx: Context): void {
  const { catalog, profile } = shownCatalog(options, ctx);
  const key = lookUp(catalog, profile, id);
  const v = view(key, catalog.data.triggers[key]!, profile);
  const { io } = ctx;
  if (options.json) return io.json(JSON.stringify({ catalog: catalog.path, profile, trigger: v }));
  const c = io.outColors;
  const row = (label: string, text: string) => io.stdout(`${c.dim(label.padEnd(12))}${printable(text)}`);
  row('id', `${shownId(v.id)}${v.id !== key ? ` (in profile ${profile}; the catalog's key is ${shownId(key)})` : ''}`);
  if (v.name !== null) row('name', v.name);
  row('value', ruleText(v).replace(/^value /, ''));
  for (const [p, pid] of Object.entries<string>(v.ids)) row(`id in ${p}`, shownId(pid));
  if (v.deprecated !== null) row('deprecated', v.deprecated);
  if (v.description !== null) row('description', v.description);
  row('catalog', catalog.path); // row() makes it printable
}

/** The fields as typed: the bounds as decimal text, checked by bound(). */
interface EntryOptions extends CatalogFlag, Pick<TriggerEntry, 'name' | 'value' | 'description' | 'deprecated'> {
  min?: string;
  max?: string;
  id?: string; // edit: the id --profile uses.
  clear?: Array<(typeof CLEARABLE)[number]>; // edit: fields to remove.
}

/** A bound as a JSON number; refused when a double cannot hold the digits typed, as the catalog compares them. */
function bound(text: string, flag: string): number {
  const json = parseValue(text, flag).json;
  const n = Number(json);
  const message = `${flag} ${text} has more digits than a catalog bound keeps (${String(n)} would be stored)`;
  if (compareDecimal(String(n), json) !== 0) throw new UsageError(message, { hint: 'give at most 17 significant digits' });
  return n;
}

function applyFields(entry: TriggerEntry, options: EntryOptions): TriggerEntry {
  const { name, value, description, deprecated, min, max } = options; // value: one of VALUE_RULES, commander checks its choices
  const given: TriggerEntry = { name, value, description, deprecated };
  if (min !== undefined) given.min = bound(min, '--min');
  if (max !== undefined) given.max = bound(max, '--max');
  // The fields in a stable order, whatever order they were set in; one not given keeps the entry's.
  return Object.fromEntries(ENTRY_FIELDS.map((field) => [field, given[field] ?? entry[field]]).filter(([, v]) => v !== undefined));
}

function checkNewId(id: string): void {
  if (id.trim() === '') throw new UsageError('a trigger id must not be empty');
  if (!id.isWellFormed()) throw new UsageError('a trigger id must be valid Unicode');
}

/** The catalog a change works on, read inside its lock (`path`: the file itself); `shown` names the file for a message. */
interface WriteTarget extends Catalog {
  shown: string;
  created: boolean;
  schema?: SchemaPlan | undefined; // A new catalog: where its "$schema" points.
  save(triggers: CatalogData['triggers']): void;
}

/**
 * Runs a change of the catalog in effect (or, with `create`, of a new one where none is: here, or where --catalog / TRIGGER_CATALOG names)
 * under the settings' lock (`<file>.lock`, judged by whether its holder runs), so that two `triggers add` at once both land: each reads the
 * file inside the lock. The lock's file has its links followed and, when the search found it, is trusted (an untrusted catalog is refused
 * before anything is made beside it); a catalog that cannot be used is not written over.
 */
async function changeCatalog(options: CatalogFlag, ctx: Context, create: boolean, change: (target: WriteTarget) => void): Promise<void> {
  const where = found(options, ctx, create);
  const lockFile = where
    ? catalogTarget(where.path, { source: where.source, env: ctx.env, write: true }).real
    : path.join(ctx.cwd, CATALOG_FILE_NAME);
  const { withLock } = await import('../lock.js');
  const hint = 'make its folder writable, or name a catalog in a folder you can write to with --catalog <file>';
  await withLock(lockFile, async () => change(writeTarget(where, ctx, create)), { hint });
}

function writeTarget(where: FoundCatalog | undefined, ctx: Context, create: boolean): WriteTarget {
  if (where && (!create || where.source === 'found' || fs.existsSync(where.path))) {
    const { data, text, real, stat } = loadCatalog(where, { env: ctx.env, write: true });
    // For its message: the file a write changes, and the link it was found through.
    const link = path.resolve(where.path) === real ? '' : ` (the file ${printable(where.path)} links to)`;
    const save = (triggers: CatalogData['triggers']) => saveCatalog(real, { ...data, triggers }, stat);
    return { path: real, text, data, shown: `${printable(real)}${link}`, created: false, save };
  }
  const file = where?.path ?? path.join(ctx.cwd, CATALOG_FILE_NAME);
  const schema = schemaFor(file);
  const data = newCatalog(schema);
  const save = (triggers: CatalogData['triggers']) => saveCatalog(file, { ...data, triggers }, undefined);
  return { path: file, text: '', data, shown: printable(file), created: true, schema, save };
}

export async function add(id: string, options: EntryOptions, ctx: Context): Promise<void> {
  checkNewId(id);
  const hint = `e.g. trigger triggers add ${shellQuote(id)} --name "Purchase completed"`;
  if (options.name === undefined) throw new UsageError('add needs --name <text>: the name the dashboard shows', { hint });
  await changeCatalog(options, ctx, true, (target) => {
    const message = `trigger ${JSON.stringify(id)} is already in ${printable(target.path)}`;
    if (Object.hasOwn(target.data.triggers, id))
      throw new UsageError(message, { hint: `change it with: trigger triggers edit ${shellQuote(id)}` });
    const same = Object.keys(target.data.triggers).find((key) => key.normalize('NFC') === id.normalize('NFC'));
    if (same !== undefined)
      throw new UsageError(`trigger ${spelled(id)} looks the same as ${spelled(same)}, already in ${printable(target.path)}`);
    const entry = applyFields({}, options);
    target.save({ ...target.data.triggers, [id]: entry });
    const { io } = ctx;
    const c = io.outColors;
    io.stdout(`${c.success('added')} ${printable(id)} to ${target.shown}${target.created ? ' (created)' : ''}`);
    writeSchema(target, io);
    io.stdout(`
The service's API cannot create triggers: create it in the dashboard too:
  1. open the Triggers page and click ${c.bold('Create Trigger')}
  2. name: ${printable(entry.name ?? id)}
  3. id: ${printable(id)}  (edit the generated id to this)
  4. type: ${c.bold('Custom')}, then ${c.bold('Save')}
Where another profile's account uses another id: trigger triggers edit ${printable(shellQuote(id))} --profile <profile> --id <id>`);
  });
}

/**
 * For a new catalog: the package's schema its "$schema" names, copied beside it where nothing else has it (replaced whole, never through
 * a link). A file of that name that is no trigger catalog schema (another title, or no JSON) is left alone: it is someone's own.
 */
function writeSchema({ schema }: WriteTarget, io: Output): void {
  const { copyFrom, copyTo } = schema ?? {};
  if (copyFrom === undefined || copyTo === undefined) return;
  if (someoneElses(copyTo, copyFrom)) return; // put there since schemaFor looked
  try {
    writeFileAtomic(copyTo, fs.readFileSync(copyFrom, 'utf8'), { follow: false });
    io.stdout(io.outColors.dim(`wrote ${printable(copyTo)}, the schema its "$schema" names (for editors)`));
  } catch (error) {
    const warning = `warning: cannot write ${printable(copyTo)} (${errnoWords(error, 'writing')}): editors will not find the schema "$schema" names`;
    io.stderr(io.errColors.warn(warning));
  }
}

const CLEARABLE = ['description', 'min', 'max', 'deprecated'] as const;

export async function edit(id: string, options: EntryOptions, ctx: Context): Promise<void> {
  await changeCatalog(options, ctx, false, (target) => {
    const key = lookUp(target, activeProfile({}, ctx.env), id);
    const entry = applyFields(target.data.triggers[key]!, options);
    for (const field of options.clear ?? []) delete entry[field];
    if (options.id !== undefined) {
      if (!options.profile) throw new UsageError('--id needs --profile <profile>: the profile whose account uses that id');
      checkNewId(options.id);
      const { [options.profile]: _was, ...ids } = entry.ids ?? {};
      entry.ids = options.id === key ? ids : { ...ids, [options.profile]: options.id }; // An id equal to the key is no id of its own.
      if (Object.keys(entry.ids).length === 0) delete entry.ids;
    } else if (options.profile) {
      throw new UsageError('--profile in triggers edit names the profile for --id <id>');
    }
    const hint = 'give --name, --value, --min, --max, --description, --deprecated, --clear, or --profile with --id';
    if (JSON.stringify(entry) === JSON.stringify(target.data.triggers[key])) throw new UsageError(`nothing to change for ${key}`, { hint });
    target.save({ ...target.data.triggers, [key]: entry });
    ctx.io.stdout(`${ctx.io.outColors.success('changed')} ${printable(key)} in ${target.shown}`);
  });
}

export async function remove(id: string, options: CatalogFlag, ctx: Context): Promise<void> {
  await changeCatalog(options, ctx, false, (target) => {
    const key = lookUp(target, activeProfile({}, ctx.env), id);
    const { [key]: _removed, ...triggers } = target.data.triggers;
    target.save(triggers);
    ctx.io.stdout(`${ctx.io.outColors.success('removed')} ${printable(key)} from ${target.shown} (the dashboard still has it)`);
  });
}

export type ImportOptions = CatalogFlag & { format?: Format; columns?: string };

export type CheckOptions = ImportOptions & { json?: boolean; trigger?: string };

type FileProblem = { file: string; line: number | null; message: string };

/** Checks the catalog and every row of the batch files, sending nothing: exit 1 for a bad row, 2 when the catalog cannot be used. */
export async function check(files: string[], options: CheckOptions, ctx: Context): Promise<void> {
  const { io, env } = ctx;
  const where = found(options, ctx)!;
  // A catalog that is not trusted, not a regular file or too large is not read at all: exit 2.
  const parsed = parseCatalog(readCatalogFile(where.path, { source: where.source, env }).text);
  const problems: FileProblem[] = parsed.problems.map((p) => ({ file: where.path, line: p.line ?? null, message: p.message }));
  const warnings: FileProblem[] = [];
  let rows = 0;
  const resolver = parsed.data && new TriggerResolver({ path: where.path, text: '', data: parsed.data }, activeProfile(options, env));
  for (const source of resolver ? files : []) {
    const name = source === '-' ? 'stdin' : source; // as the user wrote it, for file:line
    const check = rowChecker(resolver!, (message, line) => warnings.push({ file: name, line, message: message.replace(/^warning: /, '') }));
    try {
      for await (const row of rowsOf(source, options, ctx, { trigger: options.trigger, check })) {
        rows++;
        if (row.invalid !== undefined) problems.push({ file: row.file ?? name, line: row.line, message: row.invalid });
      }
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push({ file: name, line: null, message: error.message });
    }
  }
  printProblems(problems, warnings, where.path, options, ctx);
  if (!parsed.data) {
    const message = `the catalog ${printable(where.path)} cannot be used: ${count(problems.length, 'problem')}`;
    const error = new ConfigError(message, { reported: true });
    if (!options.json) io.stderr(errorLine(error, io.errColors, io.serverMask));
    throw error;
  }
  const summary = `${printable(where.path)}: ${count(Object.keys(parsed.data.triggers).length, 'trigger')}${files.length ? `; ${count(rows, 'row')} in ${count(files.length, 'file')}` : ''}; ${count(problems.length, 'problem')}`;
  if (!options.json) io.stderr(problems.length ? io.errColors.error(summary) : io.errColors.dim(summary));
  // Exit 1, as for rows a batch would not send; the problems are printed already.
  if (problems.length > 0) throw new TriggerError('refused', summary, { reported: true });
}

/** Warnings on stderr, problems as file:line on stdout (or one JSON object), and each as a GitHub annotation in Actions. */
function printProblems(problems: FileProblem[], warnings: FileProblem[], catalog: string, options: CheckOptions, { io, env }: Context) {
  const gha = env.GITHUB_ACTIONS === 'true';
  const at = (p: FileProblem) => `${printable(p.file)}${p.line !== null ? `:${p.line}` : ''}: ${printable(p.message)}`;
  const annotation = (level: 'error' | 'warning', p: FileProblem) =>
    githubAnnotation(p.message, 'trigger', { level, file: p.file, line: p.line });
  for (const w of warnings) {
    io.stderr(io.errColors.warn(at(w)));
    if (gha) io.stderr(annotation('warning', w));
  }
  if (options.json) io.json(JSON.stringify({ ok: problems.length === 0, catalog, problems, warnings }));
  else for (const p of problems) io.stdout(at(p));
  if (gha) for (const p of problems) io.stderr(annotation('error', p));
}

/** The rows of one batch file, read as trigger batch reads them (--columns: the files' own column names). */
async function* rowsOf(source: string, options: ImportOptions, ctx: Context, read: ReadOptions = {}) {
  read = { ...read, columns: options.columns === undefined ? undefined : parseColumns(options.columns) };
  const input = await openInputs([source], { format: options.format, cwd: ctx.cwd, stdin: ctx.stdin, read });
  for await (const chunk of input.read(read).rows) yield* chunk;
}

/** Adds the distinct triggers of existing batch files to the catalog (created here when there is none). */
export async function importFiles(files: string[], options: ImportOptions, ctx: Context): Promise<void> {
  // The files are read first; the catalog is read and changed under its lock.
  const seen = new Set<string>();
  for (const source of files) {
    for await (const row of rowsOf(source, options, ctx)) if (row.triggerId?.trim()) seen.add(row.triggerId);
  }
  await changeCatalog(options, ctx, true, (target) => {
    const resolver = new TriggerResolver(target, activeProfile(options, ctx.env));
    const added = [...seen].filter((id) => !resolver.resolve(id).ok);
    const known = seen.size - added.length;
    if (added.length > 0) target.save({ ...target.data.triggers, ...Object.fromEntries(added.map((id) => [id, { name: id }])) });
    const { io } = ctx;
    const imported = `${io.outColors.success('imported')} ${count(added.length, 'trigger')} into ${target.shown}`;
    io.stdout(`${imported}${known ? ` (${known} already there)` : ''}`);
    for (const id of added) io.stdout(`  ${printable(id)}`);
    if (added.length === 0) return;
    writeSchema(target, io);
    io.stderr(io.errColors.dim('each is named by its id: give it its dashboard name with trigger triggers edit <id> --name <name>'));
  });
}

const EXAMPLES = `
Examples:
  $ trigger triggers add purchase --name "Purchase completed" --value required --min 0
  $ trigger triggers edit signup --profile staging --id signup-test   # staging's account uses another id
  $ trigger triggers list
  $ trigger triggers check events.csv          # in CI, before a backfill: every bad row as file:line
  $ trigger triggers import old/*.csv          # a catalog from the batch files you already have

The catalog is triggers.json in this folder or a parent (or --catalog <file>, or TRIGGER_CATALOG).
With one, fire and batch refuse a trigger it does not know before sending anything.`;

const COLUMNS_HELP = "the files' own column names: triggerId=<name>,userId=<name>,value=<name>";

/** list and show: what they print, and whose ids. */
const viewOptions = (command: Command) =>
  command.option('--json', 'print one JSON object').option('--profile <name>', 'show the ids of this profile (default: the active one)');

function entryOptions(command: Command): Command {
  return command
    .option('--name <text>', 'the name the dashboard shows')
    .addOption(new Option('--value <rule>', 'whether events carry a value').choices(VALUE_RULES))
    .option('--min <number>', 'the smallest value allowed')
    .option('--max <number>', 'the largest value allowed')
    .option('--description <text>', 'free text')
    .option('--deprecated <reason>', 'mark it deprecated (it still fires, with a warning), e.g. "use promo-2026"');
}

export function command(program: Command, ctx: Context): Command {
  const triggers = program
    .command('triggers')
    .description('the trigger catalog (triggers.json): which triggers exist, their ids per profile and value rules')
    .addHelpText('after', EXAMPLES);
  viewOptions(triggers.command('list').description('list the triggers, with their ids in the active profile')).action(
    (options: CatalogFlag & { json?: boolean }) => list(options, ctx),
  );
  viewOptions(triggers.command('show').description('show one trigger').argument('<id>', 'its key or its id in the active profile')).action(
    (id: string, options: CatalogFlag & { json?: boolean }) => show(id, options, ctx),
  );
  entryOptions(
    triggers
      .command('add')
      .description('add a trigger (creates triggers.json here when there is none)')
      .argument('<id>', 'the id as the dashboard shows it'),
  ).action((id: string, options: EntryOptions) => add(id, options, ctx));
  entryOptions(triggers.command('edit').description('change a trigger').argument('<id>', 'its key or its id in the active profile'))
    .option('--profile <name>', 'with --id: the profile whose account uses another id')
    .option('--id <id>', "with --profile: that profile's id for this trigger")
    .addOption(new Option('--clear <field...>', 'remove fields').choices(CLEARABLE))
    .action((id: string, options: EntryOptions) => edit(id, options, ctx));
  triggers
    .command('remove')
    .description('remove a trigger from the catalog')
    .argument('<id>', 'its key or its id in the active profile')
    .action((id: string, options: CatalogFlag) => remove(id, options, ctx));
  triggers
    .command('check')
    .description('check the catalog and every row of batch files, sending nothing (exit 1 if any problem)')
    .argument('[file...]', 'batch files (CSV or NDJSON), read as trigger batch reads them; - for standard input')
    .addOption(new Option('--format <format>', 'input format (default: from the extension)').choices(FORMATS))
    .option('--trigger <id>', 'the trigger for rows that have none')
    .option('--columns <map>', COLUMNS_HELP)
    .option('--json', 'print one JSON object')
    .option('--profile <name>', 'check against the ids of this profile (default: the active one)')
    .action((files: string[], options: CheckOptions) => check(files, options, ctx));
  triggers
    .command('import')
    .description('add the distinct triggers of existing batch files to the catalog')
    .argument('<file...>', 'batch files (CSV or NDJSON)')
    .addOption(new Option('--format <format>', 'input format (default: from the extension)').choices(IMPORT_FORMATS))
    .option('--columns <map>', COLUMNS_HELP)
    .action((files: string[], options: ImportOptions) => importFiles(files, options, ctx));
  for (const sub of triggers.commands)
    sub.option('--catalog <file>', 'the catalog file (default: TRIGGER_CATALOG, else triggers.json here or in a parent folder)');
  return triggers;
}
