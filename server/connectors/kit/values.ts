/** Vendors' values as the engine keeps them: time stamps as ISO 8601 in UTC, decimal amounts as numbers. */

/** A time stamp ("2026-03-01T12:00:00+0000", "…Z", "…+02:00") as ISO 8601 in UTC; undefined when it is none. */
export function isoStamp(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  // "+0000" is not a zone Date.parse reads; "+00:00" is
  const t = Date.parse(v.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** A decimal amount as an API writes it ("10.0", "25.00" or 25) as a number to the cent; undefined when it is none. */
export function decimalAmount(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? Number(n.toFixed(2)) : undefined;
}
