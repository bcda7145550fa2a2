/**
 * The library: what `trigger fire` does, for Node programs, without spawning the CLI (README.md, "Library"). loadSettings resolves as the
 * CLI does, a key in the OS credential store included; resolveSettings does so synchronously, without the store. One client from
 * createClient keeps its connections alive for many events; findCatalog, loadCatalog and TriggerResolver resolve a trigger from a catalog
 * (triggers.json) as `trigger fire` does, checked as the CLI checks it.
 */
export { createClient, fireEvent, TriggerClient } from './client/client.js';
export type { ClientEvent, ClientOptions, FireOptions, FireResult } from './client/client.js';
export { encodeSegment, eventPath, parseValue, prepareEvent, USER_AGENT } from './client/request.js';
export type { EventInput, EventValue, PreparedEvent } from './client/request.js';
export * from './errors.js';
export { configDir, configPath } from './settings/paths.js';
export { loadSettings, resolveSettings } from './settings/resolve.js';
export type { ResolveOptions, Settings, SettingsFlags, Source } from './settings/resolve.js';
export { maskKey, parseBaseUrl } from './settings/validate.js';
export type { BaseUrl } from './settings/validate.js';
export { VERSION } from './version.js';
export { startEmulator } from './emulator/server.js';
export type { Emulator, EmulatorOptions, RecordedEvent, RequestEntry } from './emulator/server.js';
export { CATALOG_FILE_NAME, findCatalog } from './catalog/find.js';
export type { CatalogSource, FindCatalogOptions, FoundCatalog } from './catalog/find.js';
export { catalogProblems, isPlainValid, loadCatalog, parseCatalog, triggerIdsFor } from './catalog/load.js';
export type { Catalog, CatalogData, CatalogProblem, TriggerEntry, ValueRule } from './catalog/load.js';
export { TriggerResolver } from './catalog/resolve.js';
export type { KnownTrigger, Resolution, UnknownTrigger } from './catalog/resolve.js';
