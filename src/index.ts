/**
 * The library: what `trigger fire` does, for Node programs, without spawning the CLI.
 *
 *   import { fireEvent, loadSettings } from 'trigger-cli';     // or: require('trigger-cli')
 *   const settings = await loadSettings();         // flag > env > profile (keychain or file), as the CLI does
 *   await fireEvent({ triggerId: 'purchase', userId: 'alice', value: 9.99 },
 *                   { baseUrl: settings.baseUrl, apiKey: settings.apiKey! });
 *
 * For many events, create one client and call `fire` on it: it keeps its connections alive.
 *
 * With a trigger catalog (triggers.json), resolve a trigger as `trigger fire` does:
 *   const found = findCatalog({ cwd: process.cwd(), env: process.env });
 *   const triggers = found && new TriggerResolver(loadCatalog(found), settings.profile); // found by the search: checked as the CLI checks it
 *   const r = triggers?.resolve('purchase');   // { ok: true, trigger: { id, ... } } or { ok: false, message }
 */
export {
  createClient,
  fireEvent,
  TriggerClient,
  USER_AGENT,
  type ClientEvent,
  type ClientOptions,
  type FireOptions,
  type FireResult,
} from './client/client.js';
export {
  encodeSegment,
  eventPath,
  parseValue,
  prepareEvent,
  type EventInput,
  type EventValue,
  type PreparedEvent,
} from './client/request.js';
export {
  AttemptError,
  ConfigError,
  exitCodeFor,
  InterruptedError,
  isAttemptError,
  isTriggerError,
  NetworkError,
  ServiceError,
  TriggerError,
  UsageError,
  type ErrorKind,
  type Recorded,
} from './errors.js';
export { configDir, configPath } from './settings/paths.js';
export { loadSettings, resolveSettings, type ResolveOptions, type Settings, type SettingsFlags, type Source } from './settings/resolve.js';
export { maskKey, parseBaseUrl, type BaseUrl } from './settings/validate.js';
export { VERSION } from './version.js';
export { startEmulator, type Emulator, type EmulatorOptions, type RecordedEvent, type RequestEntry } from './emulator/server.js';
export { CATALOG_FILE_NAME, findCatalog, type CatalogSource, type FindCatalogOptions, type FoundCatalog } from './catalog/find.js';
export {
  catalogProblems,
  isPlainValid,
  loadCatalog,
  parseCatalog,
  triggerIdsFor,
  type Catalog,
  type CatalogData,
  type CatalogProblem,
  type TriggerEntry,
  type ValueRule,
} from './catalog/load.js';
export { TriggerResolver, type KnownTrigger, type Resolution, type UnknownTrigger } from './catalog/resolve.js';
