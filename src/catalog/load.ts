/**
 * The catalog (triggers.json): what a team knows about its triggers, read and checked. Loaded only when a catalog is found (see find.ts),
 * so a command without one pays nothing for it.
 *
 *   { "$schema": "...", "triggers": { "<id>": { "name", "value", "min", "max", "deprecated", "description", "ids" } } }
 *
 * The rules here are the ones triggers.schema.json states (test/unit/catalog-schema.test.ts holds them together), plus those a JSON Schema
 * cannot state: min not above max, and one id per trigger in each profile.
 */
import type fs from 'node:fs';
import path from 'node:path';
import { makeFolders, writeFileAtomic } from '../atomic-write.js';
import { ConfigError } from '../errors.js';
import { quotedExcerpt } from '../output/excerpt.js';
import { printable } from '../output/render.js';
import { PROFILE_NAME } from '../settings/store.js';
import { readOwnRecord } from '../startup.js';
import { tryOr } from '../try-or.js';
import { readCatalogFile, type ReadCatalogOptions } from './file.js';
import type { CatalogSource, FoundCatalog } from './find.js';

export type ValueRule = 'required' | 'optional' | 'none';
export const VALUE_RULES: readonly ValueRule[] = ['required', 'optional', 'none'];

export interface TriggerEntry {
  name?: string;
  description?: string;
  value?: ValueRule;
  min?: number;
  max?: number;
  deprecated?: string;
  /** A settings profile to the id that profile's account uses, where it differs from the key. */
  ids?: Record<string, string>;
}

export interface CatalogData {
  $schema?: string;
  triggers: Record<string, TriggerEntry>;
  [other: string]: unknown;
}

export interface CatalogProblem {
  message: string;
  /** The line of the file it is about, when known (1-based). */
  line?: number | undefined;
  column?: number | undefined;
}

export interface Catalog {
  path: string;
  /** The file's text as read (its hash goes in a batch journal). */
  text: string;
  data: CatalogData;
}

export const ENTRY_FIELDS = ['name', 'description', 'value', 'min', 'max', 'deprecated', 'ids'] as const;
const TOP_FIELDS = ['$schema', 'triggers'];

const kind = (value: object | null) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object');
const describe = (value: unknown): string =>
  typeof value === 'string' ? quotedExcerpt(value) : typeof value === 'object' ? kind(value) : JSON.stringify(value);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The line (1-based) of an offset in text, counted on from the offset asked before (they come mostly in order). */
function lineFinder(text: string): (offset: number) => number {
  let at = 0;
  let line = 1;
  return (offset) => {
    if (offset < at) [at, line] = [0, 1];
    for (let i = text.indexOf('\n', at); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
    at = offset;
    return line;
  };
}

const MAX_KEY_RESCANS = 64; // Searches from the start of the text for keys not found after the last one, at most this many times.

/**
 * The line where a key is written, for messages that point at it. Keys are looked for in the order they are asked (the file's order,
 * mostly), each search, and each count of lines, going on from the last key found: a catalog within the limits with a problem on each of
 * 200,000 triggers took over two minutes with a search from the start and a line count for each.
 */
function keyLines(text: string): (key: string) => number | undefined {
  const lineAt = lineFinder(text);
  let cursor = 0;
  let rescans = 0;
  const find = (quoted: string, from: number) => {
    for (let at = text.indexOf(quoted, from); at >= 0; at = text.indexOf(quoted, at + 1))
      if (/^\s*:/.test(text.slice(at + quoted.length, at + quoted.length + 64))) return at;
    return -1;
  };
  return (key) => {
    const quoted = JSON.stringify(key);
    let at = find(quoted, cursor);
    if (at < 0 && cursor > 0 && rescans++ < MAX_KEY_RESCANS) at = find(quoted, 0);
    if (at < 0) return undefined;
    cursor = at + quoted.length;
    return lineAt(at);
  };
}

/** JSON.parse's complaint, with line and column from its position (Node 20 gives only the offset). */
function syntaxProblem(text: string, error: Error): CatalogProblem {
  const position = /at position (\d+)/.exec(error.message);
  const offset = position ? Number(position[1]) : text.length;
  const line = lineFinder(text)(offset);
  const column = offset - text.slice(0, offset).lastIndexOf('\n');
  const words = error.message
    .replace(/\s*(?:in JSON )?at position \d+.*$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'the file ends too early');
  return { message: `not valid JSON: ${words} (line ${line}, column ${column})`, line, column };
}

/** Whether the catalog breaks no rule: the library's yes-or-no form of catalogProblems. */
export const isPlainValid = (data: unknown): boolean => catalogProblems(data).length === 0;

/** Every problem in parsed catalog text (for `trigger triggers check`), each with its line where that is known. */
export function catalogProblems(data: unknown, text = ''): CatalogProblem[] {
  if (!isObject(data)) return [{ message: `the catalog must be a JSON object with "triggers", not ${describe(data)}`, line: 1 }];
  const lineOfKey = keyLines(text);
  const problems: CatalogProblem[] = [];
  for (const field of Object.keys(data))
    if (!TOP_FIELDS.includes(field))
      problems.push({ message: `unknown field ${quotedExcerpt(field)} (a catalog has "$schema" and "triggers")`, line: lineOfKey(field) });
  if (data.$schema !== undefined && typeof data.$schema !== 'string') problems.push({ message: '"$schema" must be a string' });
  const triggers = data.triggers;
  if (!isObject(triggers)) {
    const message = triggers === undefined ? 'no "triggers" object' : `"triggers" must be an object, not ${describe(triggers)}`;
    return [...problems, { message, line: 1 }];
  }
  for (const [key, entry] of Object.entries(triggers)) {
    let line: number | null | undefined = null; // looked for once per key, when it has a problem (a search per key would be quadratic)
    entryProblems(key, entry, (message) => {
      line = line === null ? lineOfKey(key) : line;
      problems.push({ message: `trigger ${quotedExcerpt(key)}: ${message}`, line });
    });
  }
  for (const problem of underflowProblems(triggers, text)) problems.push(problem); // One by one: a spread of 300,000 overflows the stack.
  if (problems.length > 0) return problems;
  return idProblems(triggers as CatalogData['triggers'], lineOfKey);
}

/** The problems of one trigger's entry, each told to `at`. */
function entryProblems(key: string, entry: unknown, at: (message: string) => void): void {
  if (key.trim() === '') at('an empty trigger id');
  if (!isObject(entry)) return at(`must be an object such as {"name": "..."}, not ${describe(entry)}`);
  for (const field of Object.keys(entry))
    if (!(ENTRY_FIELDS as readonly string[]).includes(field))
      at(`unknown field ${quotedExcerpt(field)} (known: ${ENTRY_FIELDS.join(', ')})`);
  for (const field of ['name', 'description', 'deprecated'] as const) {
    const value = entry[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') at(`"${field}" must be a string, not ${describe(value)}`);
    else if (field !== 'description' && value.trim() === '') at(`"${field}" must not be empty`);
  }
  const rule = entry.value;
  if (rule !== undefined && !VALUE_RULES.includes(rule as ValueRule))
    at(`"value" must be "required", "optional" or "none", not ${describe(rule)}`);
  for (const bound of ['min', 'max'] as const) {
    const value = entry[bound];
    if (value === undefined) continue;
    if (typeof value !== 'number') at(`"${bound}" must be a number, not ${describe(value)}`);
    // JSON.parse reads 1e999 (or a 1 and 400 zeros) as Infinity, which no value can be compared with.
    else if (!Number.isFinite(value)) at(`"${bound}" is outside the range of a number (a double holds at most about 1.8e308)`);
    else if (rule === 'none') at(`"${bound}" bounds a value, but "value" is "none"`);
  }
  if (typeof entry.min === 'number' && typeof entry.max === 'number' && entry.min > entry.max)
    at(`"min" (${entry.min}) is above "max" (${entry.max})`);
  const ids = entry.ids;
  if (ids === undefined) return;
  if (!isObject(ids)) return at(`"ids" must map profiles to ids, such as {"staging": "purchase-test"}, not ${describe(ids)}`);
  for (const [profile, id] of Object.entries(ids)) {
    const named = quotedExcerpt(profile); // cut as a long --profile is (audit25 #5)
    if (!PROFILE_NAME.test(profile)) at(`"ids": ${named} is not a profile name (up to 64 letters, digits, "-", "_", ".")`);
    if (typeof id !== 'string') at(`"ids".${named} must be a string, not ${describe(id)}`);
    else if (id.trim() === '') at(`"ids".${named} is an empty id`);
  }
}

const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g; // A JSON string (passed over) or a number, in catalog text.

/** Bounds too small for a double (1e-400) read as 0 by JSON.parse: `min: 1e-400` would let 0 through. Looked for only when a bound is 0. */
function underflowProblems(triggers: Record<string, unknown>, text: string): CatalogProblem[] {
  if (!/[eE]-\d|0{100}/.test(text)) return []; // Such a number has a negative exponent or many zeros: a native search rules most text out.
  if (!Object.values(triggers).some((entry) => isObject(entry) && (entry.min === 0 || entry.max === 0))) return [];
  const problems: CatalogProblem[] = [];
  const lineAt = lineFinder(text);
  for (const m of text.matchAll(STRING_OR_NUMBER)) {
    const number = m[0];
    if (number.startsWith('"') || Number(number) !== 0 || !/[1-9]/.test(number.split(/[eE]/)[0]!)) continue;
    const message = `${number} is too small for a number: a double reads it as 0 (write 0 if that is meant)`;
    problems.push({ message, line: lineAt(m.index) });
  }
  return problems;
}

/** An id as JSON with every character past ASCII as \\u: two that look the same on screen differ in print. */
export const spelled = (id: string) =>
  JSON.stringify(id).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * One id per trigger in each profile, and no name that means two triggers: a profile's own id that is another trigger's key is refused
 * whatever that trigger sends there, so that a key is never ambiguous. One walk of the own ids, however many profiles there are.
 */
function idProblems(triggers: CatalogData['triggers'], lineOfKey: (key: string) => number | undefined): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  // Two keys one Unicode text written two ways (é as one character, or e and an accent) read the same and send apart (audit23).
  const forms = new Map<string, string>();
  for (const key of Object.keys(triggers)) {
    const other = forms.get(key.normalize('NFC'));
    if (other !== undefined)
      problems.push({ message: `triggers ${spelled(other)} and ${spelled(key)} look the same: keep one`, line: lineOfKey(key) });
    else forms.set(key.normalize('NFC'), key);
  }
  const owners = new Map<string, string>(); // "profile:id" (a profile name has no colon) to the trigger with that id of its own there.
  for (const [key, entry] of Object.entries(triggers)) {
    for (const [profile, id] of Object.entries(entry.ids ?? {})) {
      if (id === key) continue;
      const other = owners.get(`${profile}:${id}`);
      if (Object.hasOwn(triggers, id)) {
        const message = `in profile ${profile}, ${quotedExcerpt(id)} is both the trigger of that name and the id of ${quotedExcerpt(key)}`;
        problems.push({ message, line: lineOfKey(key) });
      } else if (other !== undefined) {
        const message = `triggers ${quotedExcerpt(other)} and ${quotedExcerpt(key)} have one id, ${quotedExcerpt(id)}, in profile ${profile}`;
        problems.push({ message, line: lineOfKey(key) });
      } else owners.set(`${profile}:${id}`, key);
    }
  }
  return problems;
}

/** JSON text, a byte order mark at its start passed over (editors on Windows write one). */
const parseJson = (text: string): unknown => JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** Parses and checks catalog text: the data, or the problems that make it unusable. */
export function parseCatalog(text: string): { data: CatalogData; problems: [] } | { data: undefined; problems: CatalogProblem[] } {
  let data: unknown;
  try {
    data = parseJson(text);
  } catch (error) {
    return { data: undefined, problems: [syntaxProblem(text, error as Error)] };
  }
  const problems = catalogProblems(data, text);
  return problems.length === 0 ? { data: data as CatalogData, problems: [] } : { data: undefined, problems };
}

/** The error for a catalog that cannot be used (exit 2), naming the file and the problem. */
function catalogError(file: string, problems: CatalogProblem[]): ConfigError {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  const where = first.line === undefined ? printable(file) : `${printable(file)}:${first.line}`;
  const hint = 'fix it (trigger triggers check lists every problem), or pass --no-catalog to do without it';
  return new ConfigError(`catalog ${where}: ${first.message}${more}`, { hint });
}

/** env and write: as readCatalogFile takes them (file.ts); the source is the one `found` says. */
export interface LoadOptions extends Omit<ReadCatalogOptions, 'source'> {
  /**
   * A file that remembers catalogs found usable, by the identity the kernel gives the file (device, inode, size, modification and change
   * times). A catalog unchanged since it passed every rule is only parsed: the check is most of what a large catalog costs a `fire`, and
   * the file cannot have changed without its change time moving.
   */
  checkedRecord?: string | undefined;
}

const MAX_RECORD_BYTES = 64 * 1024; // The record of catalogs checked holds 16 short lines; anything much larger is not one of ours.
const MAX_REMEMBERED = 16; // Catalogs remembered as usable, at most this many (the last ones checked).
/** A catalog changed less than this long before its check is not remembered (a coarse clock could hide a second change). */
const SETTLED_MS = 2000;

/** The rules a remembered catalog passed: one made under others is not taken (bounds beyond a double's range passed before 2). */
const RULES_VERSION = 2;

/** Remembers `file` as the last one checked, its earlier place (if any) given up. */
function remember(record: string, file: string, identity: string, known: Record<string, string>): void {
  const { [file]: _earlier, ...others } = known;
  const entries = Object.entries({ ...others, [file]: identity }).slice(-MAX_REMEMBERED);
  const text = `${JSON.stringify(Object.fromEntries(entries))}\n`;
  // A folder that cannot be written only means the next run checks again.
  tryOr(() => {
    makeFolders(path.dirname(record));
    writeFileAtomic(record, text, { mode: 0o600, forceMode: true, follow: false });
  });
}

/**
 * Reads and checks a catalog file; throws a ConfigError (exit 2) naming the file when it cannot be used. A path given as a string is
 * trusted by name (as --catalog); a catalog as findCatalog returns it is checked for its owner when the search found it. Also returns the
 * file read (links followed, what a change writes) and its identity.
 */
export function loadCatalog(found: string | FoundCatalog, options: LoadOptions = {}): Catalog & { real: string; stat: fs.Stats } {
  const { path: file, source } = typeof found === 'string' ? { path: found, source: 'flag' as CatalogSource } : found;
  // One open file for the identity and the text, so that what is read is what was identified.
  const { text, stat, real } = readCatalogFile(file, { source, env: options.env, write: options.write });
  const record = options.checkedRecord;
  // Only this user's own file that no one else can write (as the code cache's records): another user's could mark a catalog as checked.
  const known = record === undefined ? undefined : (readOwnRecord(record, MAX_RECORD_BYTES) as Record<string, string>);
  const identity = `${RULES_VERSION}:${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  // A checked file that does not parse now is not what was checked after all: check it.
  const checked = known?.[file] === identity ? tryOr(() => parseJson(text) as CatalogData) : undefined;
  if (checked !== undefined) return { path: file, text, data: checked, real, stat };
  const parsed = parseCatalog(text);
  if (!parsed.data) throw catalogError(file, parsed.problems);
  if (record !== undefined && known !== undefined && Date.now() - stat.ctimeMs >= SETTLED_MS) remember(record, file, identity, known);
  return { path: file, text, data: parsed.data, real, stat };
}

/** The id a trigger is sent as in a profile. */
export function idIn(key: string, entry: TriggerEntry, profile: string): string {
  // Own members only: a profile may be called "constructor" or "toString".
  return entry.ids !== undefined && Object.hasOwn(entry.ids, profile) ? entry.ids[profile]! : key;
}

/** The ids the triggers of a catalog are sent as in a profile, in catalog order (for completion and the emulator). */
export const triggerIdsFor = (catalog: Catalog, profile: string): string[] =>
  Object.entries(catalog.data.triggers).map(([key, entry]) => idIn(key, entry, profile));
