/** What every command is built with, and the options of those that send; cli.ts always loads it, so no client code (service.ts has it). */
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECONDS } from '../client/retry.js';
import type { Output } from '../output/io.js';
import * as parse from './parsers.js';
import type { SettingsFlags } from '../settings/resolve.js';

/** What the program runs with: where it writes, and the environment it reads. */
export interface Context {
  io: Output;
  env: NodeJS.ProcessEnv;
  cwd: string; // The working folder, where the trigger catalog is looked for (tests pass their own instead of chdir).
  stdin?: Readable | undefined; // Standard input, for a `-` source (default: the process's).
}

/** What a command that calls the service can exit with (fire; the batch has its own line). */
export const EXIT_CODES = `Exit codes: 0 accepted, 1 refused by the service (4xx, "success": false), 2 usage or settings error
(nothing sent), 3 no definitive answer (--json error.recorded says "no" or "unknown"), 70 a bug in
trigger, 130 interrupted (143 SIGTERM, 129 SIGHUP).`;

export type CatalogOptions = { catalog?: string | boolean }; // --catalog <file> (a path), --no-catalog (false), or neither.

export interface ServiceOptions extends SettingsFlags, CatalogOptions {
  timeout: number;
  retries: number;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  dryRun?: boolean;
}

/** The settings and catalog options, for every command that resolves the settings (fire, batch, status). */
export function addSettingsOptions(command: Command): Command {
  return command
    .option('--catalog <file>', 'the trigger catalog to use (default: TRIGGER_CATALOG, else triggers.json here or in a parent folder)')
    .option('--no-catalog', 'use no trigger catalog')
    .option('--api-key <key>', 'API key (prefer TRIGGER_API_KEY or `trigger config set-key`: flags show in ps)')
    .option('--base-url <url>', 'service base URL, e.g. https://api.example.com')
    .option('--profile <name>', 'settings profile to use (default: "default", or TRIGGER_PROFILE)')
    .option('--allow-http', 'allow plain http to a host other than loopback (sends the key in clear text)');
}

export function addServiceOptions(command: Command): Command {
  return addSettingsOptions(command)
    .option('--timeout <seconds>', 'time limit for each attempt', parse.seconds, DEFAULT_TIMEOUT_SECONDS)
    .option('--retries <n>', 'retries when the event cannot have been recorded (no connection, 429, 503)', parse.retries, DEFAULT_RETRIES)
    .option('--json', 'print one JSON object per result on stdout')
    .option('-q, --quiet', 'print nothing on success')
    .option('--verbose', 'print the request and response on stderr (key masked)')
    .option('--dry-run', 'print the request as a curl command and send nothing');
}
