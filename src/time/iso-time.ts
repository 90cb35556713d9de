/** isoSeconds writes Unix seconds as an ISO 8601 UTC timestamp without fractions: 2026-11-21T05:33:00Z. */
export function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/;

/** parseIsoSeconds reads an ISO 8601 timestamp with an explicit zone into Unix seconds, or undefined. */
export function parseIsoSeconds(text: string): number | undefined {
  if (!ISO_UTC.test(text)) return undefined;
  const millis = Date.parse(text);
  return Number.isNaN(millis) ? undefined : Math.floor(millis / 1000);
}
