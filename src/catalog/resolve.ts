/**
 * Resolving a trigger through the catalog for the active profile: the id to send, or why not. A check is one map lookup; a "did you mean"
 * is worked out once per unknown name. Everything from the catalog in a message (keys, ids, reasons, its path) is made printable here,
 * where it meets the words: the messages reach terminals and job logs through lines that add no escaping of their own.
 */
import { quotedExcerpt } from '../output/excerpt.js';
import { printable } from '../output/render.js';
import { compareDecimal } from './decimal.js';
import { editDistance } from './distance.js';
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

const MAX_MISSES = 1000; // Unknown names with none near after which a run stops looking (as a batch whose trigger column holds user ids).

export class TriggerResolver {
  private readonly seen = new Map<string, Resolution>(); // Names looked up so far: a batch asks for the same few again and again.
  /** The profile's own ids (where not the key) to the key, other profiles' ids to key and profile; made on the first name not a key. */
  private ids: { own: Map<string, string>; others: Map<string, [string, string]> } | undefined;
  private misses = 0; // Distinct unknown names with none near.

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
    const key = Object.hasOwn(this.catalog.data.triggers, given) ? given : this.idMaps().own.get(given);
    resolution = key === undefined ? this.explainUnknown(given) : { ok: true, trigger: this.trigger(key) };
    // Past MAX_MISSES a name with none near is not kept: not looked for, it costs little again, and user ids would be kept one a row.
    if (resolution.ok || this.misses <= MAX_MISSES) this.seen.set(given, resolution);
    return resolution;
  }

  private idMaps(): NonNullable<TriggerResolver['ids']> {
    if (this.ids) return this.ids;
    const ids = { own: new Map<string, string>(), others: new Map<string, [string, string]>() };
    for (const [key, entry] of Object.entries(this.catalog.data.triggers)) {
      const id = idIn(key, entry, this.profile);
      if (id !== key) ids.own.set(id, key);
      for (const [profile, other] of Object.entries(entry.ids ?? {}))
        if (profile !== this.profile && !ids.others.has(other)) ids.others.set(other, [key, profile]);
    }
    return (this.ids = ids);
  }

  private explainUnknown(given: string): UnknownTrigger {
    const where = `the catalog ${printable(this.catalog.path)}`;
    const quoted = printable(quotedExcerpt(given));
    // A name that is another profile's id for a trigger (a staging id used against production) is that trigger.
    const [key, profile] = this.idMaps().others.get(given) ?? [];
    if (key !== undefined) {
      const suggestion = this.trigger(key).id;
      const message = `trigger ${quoted} is the id of ${printable(key)} in profile ${printable(profile!)}, not in profile ${printable(this.profile)} (${where}); did you mean ${printable(suggestion)}?`;
      return { ok: false, message, suggestion };
    }
    // Else the nearest key or id within a third of the longer's length (the first on a tie), as the active profile's id of its trigger:
    // each distance worked out only as far as that third or the nearest so far, until MAX_MISSES names had none (audit28 #10).
    const lower = given.toLowerCase();
    let best: { key: string; distance: number } | undefined;
    for (const [key, entry] of this.misses < MAX_MISSES ? Object.entries(this.catalog.data.triggers) : []) {
      for (const name of [key, ...Object.values(entry.ids ?? {})]) {
        const near = Math.max(1, Math.floor(Math.max(given.length, name.length) * 0.34));
        const distance = editDistance(lower, name.toLowerCase(), Math.min(near, (best?.distance ?? Infinity) - 1));
        if (distance <= near && (!best || distance < best.distance)) best = { key, distance };
      }
    }
    if (!best) this.misses++;
    const suggestion = best && this.trigger(best.key).id;
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
