/**
 * The library: what `trigger fire` does, for Node programs, without spawning the CLI (README.md, "Library"). loadSettings resolves as the
 * CLI does, a key in the OS credential store included; resolveSettings does so synchronously, without the store. One client from
 * createClient keeps its connections alive for many events; findCatalog, loadCatalog and TriggerResolver resolve a trigger from a catalog
 * (triggers.json) as `trigger fire` does, checked as the CLI checks it.
 */
export {
  createClient,
  fireEvent,
  TriggerClient,
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
  USER_AGENT,
  type EventInput,
  type EventValue,
  type PreparedEvent,
} from './client/request.js';
export * from './errors.js';
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
