/**
 * Page cursors of keyset paging (bucket screens, activity history): opaque to callers, the last
 * row's sort key and id as base64url JSON. A cursor is decoded by parsing each part into what the
 * database will compare it as (a real date-time PostgreSQL stores, an int4, a uuid), so a forged
 * cursor is refused as 'The cursor is not valid.' instead of failing in PostgreSQL.
 */
import { parseDateTime } from './dateTime.ts';

export const CURSOR_MESSAGE = 'The cursor is not valid.';

/** What a cursor's key is read back as: a date-time, a date-time or -infinity (a sort of blanks last), an int4. */
export type CursorKey = 'date-time' | 'date-time or -infinity' | 'int4';

const UUID = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i;
const INT = /^-?\d{1,10}$/;
const INT4 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

const KEY_OK: Record<CursorKey, (key: string) => boolean> = {
  'date-time': (key) => parseDateTime(key) !== null,
  'date-time or -infinity': (key) => key === '-infinity' || parseDateTime(key) !== null,
  int4: (key) => INT.test(key) && Number(key) >= INT4.min && Number(key) <= INT4.max,
};

export function encodeCursor(key: string, id: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify([key, id]));
  const base64 = btoa(String.fromCharCode(...bytes));
  // base64 pads with at most two '='; cut by index, not by a pattern that backtracks
  let end = base64.length;
  while (end > 0 && base64[end - 1] === '=') end -= 1;
  return base64.slice(0, end).replaceAll('+', '-').replaceAll('/', '_');
}

/** The position a cursor names, or null when it is not one this service wrote for that key. */
export function decodeCursor(cursor: string, key: CursorKey): { key: string; id: string } | null {
  if (!/^[\w-]{1,400}$/.test(cursor)) return null;
  try {
    const binary = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [k, id] = parsed as unknown[];
    return typeof k === 'string' && typeof id === 'string' && KEY_OK[key](k) && UUID.test(id) ? { key: k, id } : null;
  } catch {
    return null;
  }
}
