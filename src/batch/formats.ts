/** The input formats a batch reads: one list, for the readers and for the options that name them (cli.ts). */
export type Format = 'csv' | 'ndjson' | 'lines';
export const FORMATS: readonly Format[] = ['csv', 'ndjson', 'lines'];
/** What `triggers import` reads: the formats that name their triggers. */
export const IMPORT_FORMATS: readonly Format[] = ['csv', 'ndjson'];
