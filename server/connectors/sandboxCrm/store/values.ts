/**
 * Values the Sandbox CRM's import and its constituent writes read alike: a field as text (trimmed,
 * blank as absent) and what an id looks like (an e-mail address: looksLikeEmail in src/domain).
 */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A field's value trimmed; absent when missing or blank. */
export const str = (v: unknown): string | undefined => {
  if (v === undefined || v === null) return undefined;
  const s = String(v).trim();
  return s === '' ? undefined : s;
};
