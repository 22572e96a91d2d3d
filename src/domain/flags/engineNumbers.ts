/** Feature flags: hashing and number semantics of Flipt's engine (src/domain/flags/evaluator.ts). */

// ---------------------------------------------------------------------------------------------
// Hashing and number semantics of the engine.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** UTF-8 bytes of a string; a lone surrogate becomes U+FFFD, as it does on its way into the engine. */
function utf8(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** CRC-32 (IEEE 802.3), as Go's crc32.ChecksumIEEE and Rust's crc32fast compute it, over UTF-8. */
export function crc32(s: string): number {
  let c = 0xffffffff;
  for (const b of utf8(s)) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const f32 = Math.fround;
/** Rust's f32::round: half away from zero. */
export const roundHalfAway = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));

/** Rust's `slice::binary_search` (1.82+): the last index of an equal element, else the insertion point. */
export function rustBinarySearch(sorted: number[], target: number): number {
  let size = sorted.length;
  if (size === 0) return 0;
  let base = 0;
  while (size > 1) {
    const half = size >>> 1;
    const mid = base + half;
    if (!(sorted[mid]! > target)) base = mid;
    size -= half;
  }
  const at = sorted[base]!;
  if (at === target) return base;
  return base + (at < target ? 1 : 0);
}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;

/** Rust's `str::parse::<i32>`. */
export function parseI32(s: string): number | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= I32_MIN && n <= I32_MAX ? n + 0 : null;
}

/** serde_json's `from_str::<Vec<&str>>`: a JSON list of strings without escapes (they cannot be borrowed). */
export function parseStringList(s: string): string[] | null {
  if (s.includes('\\')) return null;
  try {
    const list: unknown = JSON.parse(s);
    return Array.isArray(list) && list.every((x) => typeof x === 'string') ? list as string[] : null;
  } catch {
    return null;
  }
}

/** serde_json's `from_str::<Vec<i32>>`: a JSON list of integer literals in i32 range (-0 is a float there). */
export function parseI32List(s: string): number[] | null {
  if (/[.eE]|-0(?!\d)/.test(s)) return null;
  try {
    const list: unknown = JSON.parse(s);
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'number' && x >= I32_MIN && x <= I32_MAX)) return null;
    return list as number[];
  } catch {
    return null;
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
/** Days since 1970-01-01 of a proleptic Gregorian date. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
/** chrono's `DateTime::parse_from_rfc3339(..).timestamp()`: whole seconds since the epoch, or null. */
export function rfc3339Seconds(s: string): number | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12) return null;
  const maxDay = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day < 1 || day > maxDay || hour > 23 || minute > 59 || second > 60) return null;
  let offset = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  // a leap second (:60) is the last second of its minute plus one second of nanoseconds
  const sec = Math.min(second, 59);
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec - offset;
}
