/**
 * A base URL that already ends in /v1: the tool adds /v1 itself, so every request would go to
 * /v1/v1/... and fail with a 404 that seems to be about the trigger. Kept (a gateway may really mount
 * the service under /v1), but said when the URL is set or given.
 */
import type { BaseUrl } from './validate.js';

export function versionedBaseUrlWarning(baseUrl: BaseUrl, source?: string): string | undefined {
  if (!/\/v1$/i.test(baseUrl.prefix)) return undefined;
  const without = `${baseUrl.origin}${baseUrl.prefix.slice(0, -3)}`;
  const from = source ? ` (from ${source})` : '';
  return `warning: the base URL ${baseUrl.href}${from} ends in /v1, and trigger adds /v1 itself, so requests go to ${baseUrl.href}/v1/triggers/...; if the service is at ${without}, use that`;
}
