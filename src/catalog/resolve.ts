/**
 * Resolving a trigger through the catalog for the active profile: the id to send, or why not. A check is one map lookup; a "did you mean"
 * is worked out once per unknown name. Everything from the catalog in a message (keys, ids, reasons, its path) is made printable here,
 * where it meets the words: the messages reach terminals and job logs through lines that add no escaping of their own.
 */
import { quotedExcerpt } from '../output/excerpt.js';
import { printable } from '../output/render.js';
import { compareDecimal } from './decimal.js';
import { idIn, type Catalog, type TriggerEntry } from './load.js';

export interface KnownTrigger {
  /** The catalog key (the id as the dashboard shows it). */
  key: string;
  /** The id the active profile sends. */
  id: string;
  entry: TriggerEntry;
  /** The bounds as decimal text, compared exactly. */
  min: string | undefined;
  max: string | undefined;
}

export interface UnknownTrigger {
  ok: false;
  message: string;
  suggestion: string | undefined;
}

export type Resolution = { ok: true; trigger: KnownTrigger } | UnknownTrigger;

/** Optimal string alignment distance (Levenshtein with transpositions), as git and commander suggest. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

export class TriggerResolver {
  private readonly seen = new Map<string, Resolution>(); // Names looked up so far: a batch asks for the same few again and again.
  /** Each of the profile's own ids (where it differs from the key) mapped to its key; made on the first name that is not a key. */
  private ids: Map<string, string> | undefined;

  constructor(
    readonly catalog: Catalog,
    readonly profile: string,
  ) {}

  private trigger(key: string): KnownTrigger {
    const entry = this.catalog.data.triggers[key]!;
    return { key, id: idIn(key, entry, this.profile), entry, min: entry.min?.toString(), max: entry.max?.toString() };
  }

  /**
   * The catalog trigger a name given on the command line or in a row stands for. A key is found directly (a catalog that loaded has no
   * profile id that is another trigger's key, so a key is never ambiguous); a profile's own id through a map made once.
   */
  resolve(given: string): Resolution {
    let resolution = this.seen.get(given);
    if (resolution) return resolution;
    const key = Object.hasOwn(this.catalog.data.triggers, given) ? given : this.ownIds().get(given);
    resolution = key === undefined ? this.explainUnknown(given) : { ok: true, trigger: this.trigger(key) };
    this.seen.set(given, resolution);
    return resolution;
  }

  private ownIds(): Map<string, string> {
    if (this.ids) return this.ids;
    const triggers = this.catalog.data.triggers;
    this.ids = new Map();
    for (const key of Object.keys(triggers)) {
      const id = idIn(key, triggers[key]!, this.profile);
      if (id !== key) this.ids.set(id, key);
    }
    return this.ids;
  }

  private explainUnknown(given: string): UnknownTrigger {
    const where = `the catalog ${printable(this.catalog.path)}`;
    const quoted = printable(quotedExcerpt(given));
    let best: { key: string; name: string; distance: number } | undefined;
    for (const [key, entry] of Object.entries(this.catalog.data.triggers)) {
      // A name that is another profile's id for a trigger (a staging id used against production) is that trigger.
      for (const [profile, id] of Object.entries(entry.ids ?? {})) {
        if (id === given && profile !== this.profile) {
          const suggestion = this.trigger(key).id;
          const message = `trigger ${quoted} is the id of ${printable(key)} in profile ${printable(profile)}, not in profile ${printable(this.profile)} (${where}); did you mean ${printable(suggestion)}?`;
          return { ok: false, message, suggestion };
        }
      }
      // Else the nearest key or id, as the active profile's id of the trigger it belongs to.
      for (const name of [key, ...Object.values(entry.ids ?? {})]) {
        const distance = editDistance(given.toLowerCase(), name.toLowerCase());
        if (!best || distance < best.distance) best = { key, name, distance };
      }
    }
    const near = best && best.distance <= Math.max(1, Math.floor(Math.max(given.length, best.name.length) * 0.34));
    const suggestion = near ? this.trigger(best!.key).id : undefined;
    const message = `trigger ${quoted} is not in ${where}${suggestion ? `; did you mean ${printable(suggestion)}?` : ''}`;
    return { ok: false, message, suggestion };
  }

  /** Why a value (JSON number text, or undefined for none) breaks the trigger's rules, or undefined when it does not. */
  valueProblem(trigger: KnownTrigger, value: string | undefined): string | undefined {
    const { entry } = trigger;
    // Most triggers have no rules: nothing to word (a batch asks for every row).
    if (entry.value === undefined && trigger.min === undefined && trigger.max === undefined) return undefined;
    const key = printable(trigger.key);
    const where = `(the catalog ${printable(this.catalog.path)})`;
    if (value === undefined) return entry.value === 'required' ? `trigger ${key} requires a value ${where}` : undefined;
    if (entry.value === 'none') return `trigger ${key} takes no value, got ${value} ${where}`;
    if (trigger.min !== undefined && compareDecimal(value, trigger.min) < 0)
      return `value ${value} is below the minimum ${trigger.min} of trigger ${key} ${where}`;
    if (trigger.max !== undefined && compareDecimal(value, trigger.max) > 0)
      return `value ${value} is above the maximum ${trigger.max} of trigger ${key} ${where}`;
    return undefined;
  }

  /** The warning for a deprecated trigger, if it is one. */
  deprecation(trigger: KnownTrigger): string | undefined {
    const reason = trigger.entry.deprecated;
    if (reason === undefined) return undefined;
    return `warning: trigger ${printable(trigger.key)} is deprecated: ${printable(reason)} (the catalog ${printable(this.catalog.path)})`;
  }
}

/** The check of a batch row's trigger and value (a RowCheck, below); it warns once per deprecated trigger. */
export function rowChecker(resolver: TriggerResolver, warn: (message: string, line: number) => void): RowCheck {
  const warned = new Set<string>();
  return (given, value, line) => {
    const found = resolver.resolve(given);
    if (!found.ok) return { invalid: found.message };
    const { trigger } = found;
    const problem = resolver.valueProblem(trigger, value);
    if (problem) return { invalid: problem };
    if (trigger.entry.deprecated !== undefined && !warned.has(trigger.key)) {
      warned.add(trigger.key);
      warn(resolver.deprecation(trigger)!, line);
    }
    return { id: trigger.id };
  };
}

/** What a row check answers: the id to send, or why the row cannot be sent. */
type RowAnswer = { id: string; invalid?: undefined } | { invalid: string; id?: undefined };
export type RowCheck = (triggerId: string, value: string | undefined, line: number) => RowAnswer;
