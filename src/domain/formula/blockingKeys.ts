/**
 * Blocking keys of a destination's candidate index (DESIGN.md section 4b): cheap keys that bring
 * a record and its likely matches together, each computed from the match keys (matchKeys.ts) of a
 * few fields, so that a record and a constituent whose match keys agree on those fields always
 * share the key. An equals search by those fields can then read the key's postings and compare
 * the fields, and answers what a search of the whole destination answers.
 *
 * - `e:` e-mail; `m:` its local part (a changed domain)
 * - `p:` phone
 * - `n:` the first-name and last-name keys as an unordered pair (first and last name swapped)
 * - `z:` last-name phonetic code (Soundex of the key) and postal code
 * - `f:` first name, postal code and house number
 * - `a:` house number, street token and postal code; `d:` the whole address line (a search by name and address)
 * - `l:` lookup id (lower case)
 */

/** The match keys of one record or constituent, by field; null or absent: none. */
export interface KeyedValues {
  email?: string | null;
  phone?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  postalCode?: string | null;
  addressLine1?: string | null;
  /** the lookup id, lower-cased */
  lookupId?: string | null;
}

const SOUNDEX: Record<string, string> = {
  b: '1', f: '1', p: '1', v: '1',
  c: '2', g: '2', j: '2', k: '2', q: '2', s: '2', x: '2', z: '2',
  d: '3', t: '3', l: '4', m: '5', n: '5', r: '6',
};

/** American Soundex of a folded name (letters and digits); digits and letters outside a-z are kept as they are. */
export function soundex(folded: string): string {
  if (!folded) return '';
  let out = folded[0]!;
  let last = SOUNDEX[folded[0]!] ?? '';
  for (let i = 1; i < folded.length && out.length < 4; i++) {
    const ch = folded[i]!;
    const code = SOUNDEX[ch];
    if (code === undefined) {
      // h and w do not separate two letters of one code; vowels do
      if (ch !== 'h' && ch !== 'w') last = '';
      continue;
    }
    if (code !== last) out += code;
    last = code;
  }
  return out.padEnd(4, '0');
}

/** The house number and the first letters of the street of an address key ('12mainstreetunit4' -> 12, main); null without a number. */
export function houseAndStreet(addressKey: string): { house: string; street: string } | null {
  const m = /^(\d+)([a-z]{0,4})/.exec(addressKey);
  return m ? { house: m[1]!, street: m[2]! } : null;
}

/** The blocking keys of a set of match keys, each once. */
export function blockingKeys(k: KeyedValues): string[] {
  const keys: string[] = [];
  if (k.email) {
    keys.push(`e:${k.email}`);
    const at = k.email.lastIndexOf('@');
    if (at > 0) keys.push(`m:${k.email.slice(0, at)}`);
  }
  if (k.phone) keys.push(`p:${k.phone}`);
  if (k.firstName && k.lastName) keys.push(`n:${k.firstName < k.lastName ? `${k.firstName}|${k.lastName}` : `${k.lastName}|${k.firstName}`}`);
  if (k.lastName && k.postalCode) keys.push(`z:${soundex(k.lastName)}|${k.postalCode}`);
  const address = k.addressLine1 ? houseAndStreet(k.addressLine1) : null;
  if (address && k.postalCode) {
    if (k.firstName) keys.push(`f:${k.firstName}|${k.postalCode}|${address.house}`);
    if (address.street) keys.push(`a:${address.house}|${address.street}|${k.postalCode}`);
  }
  if (k.addressLine1) keys.push(`d:${k.addressLine1}`);
  if (k.lookupId) keys.push(`l:${k.lookupId}`);
  return keys;
}
