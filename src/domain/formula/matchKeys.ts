/**
 * Normalised match keys (DESIGN.md section 4b): what a value is searched by, so that the messy ways
 * people write the same thing meet in one indexed key. The engine computes a record's keys with
 * these functions, and the Sandbox CRM stores its constituents' keys computed by the same ones.
 *
 * - e-mail: trimmed, lower-cased; dots and plus tags are kept (two addresses that differ there may
 *   be two people, and a wrong merge costs more than a missed one).
 * - phone: its last 10 digits (country codes, punctuation and an extension dropped); fewer than 7
 *   digits: none.
 * - names: `foldName`: lower-case letters and digits only, accents, apostrophes, hyphens and spaces
 *   dropped (O'Brien = obrien, Smith-Jones = Smith Jones = smithjones); a first name is its
 *   nickname group's canonical name (Bill -> william; src/domain/formula/nicknames.ts).
 * - postal code: a US ZIP's first 5 digits (ZIP+4 dropped, a leading zero a spreadsheet dropped put
 *   back); otherwise letters and digits, upper-cased.
 * - address line: its words with the usual abbreviations written out (St -> street, N -> north,
 *   Apt, # and Unit -> unit), then folded; the unit number is kept (12 Main St. Apt 4 ->
 *   12mainstreetunit4).
 */
import { canonicalFirstName } from './nicknames.ts';

/**
 * Bumped with every change to what these functions answer: stores that keep keys (the Sandbox CRM)
 * key their rows again when they find an older version.
 */
export const MATCH_KEYS_VERSION = 1;

export const KEY_KINDS = ['email', 'phone', 'firstName', 'lastName', 'postalCode', 'addressLine1'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value)).trim();

/** Letters NFKD does not take apart. */
const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

const ASCII = /^[\x00-\x7f]*$/;

/** Lower case, accents dropped, the letters above spelled out. */
function lowerPlain(value: unknown): string {
  const t = text(value);
  // ASCII has nothing to decompose: the common case skips normalize, which scoring calls by the million
  if (ASCII.test(t)) return t.toLowerCase();
  return t.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[ßæœøłđðþı]/g, (c) => LETTERS[c]!);
}

/** Lower case without accents, apostrophes, hyphens or anything but letters and digits. */
export function foldName(value: unknown): string {
  return lowerPlain(value).replace(/[^\p{L}\p{N}]/gu, '');
}

/** Words of an address written out, so both spellings of a word read the same. */
const ADDRESS_WORDS: Record<string, string> = {
  st: 'street', str: 'street', ave: 'avenue', av: 'avenue', avn: 'avenue', rd: 'road', dr: 'drive', drv: 'drive',
  blvd: 'boulevard', boul: 'boulevard', ln: 'lane', ct: 'court', crt: 'court', pl: 'place', ter: 'terrace', terr: 'terrace',
  pkwy: 'parkway', pky: 'parkway', hwy: 'highway', cir: 'circle', sq: 'square', trl: 'trail', cres: 'crescent', xing: 'crossing',
  ctr: 'center', centre: 'center', aly: 'alley', expy: 'expressway', fwy: 'freeway', tpke: 'turnpike', hts: 'heights', mt: 'mount',
  ft: 'fort', pt: 'point', bldg: 'building', fl: 'floor', flr: 'floor', ste: 'suite', rm: 'room', hl: 'hill', vw: 'view', wy: 'way',
  n: 'north', s: 'south', e: 'east', w: 'west', ne: 'northeast', nw: 'northwest', se: 'southeast', sw: 'southwest',
  apt: 'unit', apartment: 'unit', '#': 'unit',
  first: '1st', second: '2nd', third: '3rd', fourth: '4th', fifth: '5th', sixth: '6th', seventh: '7th', eighth: '8th', ninth: '9th', tenth: '10th',
};

/** An address line's words, abbreviations written out and unit designators as one 'unit' ('Apt #4' -> unit 4). */
export function addressWords(value: unknown): string[] {
  const words = lowerPlain(value).replace(/['\u2019]/g, '').replace(/#/g, ' # ').split(/[^\p{L}\p{N}#]+/u).filter(Boolean);
  const out: string[] = [];
  for (const word of words) {
    const written = ADDRESS_WORDS[word] ?? word;
    if (!(written === 'unit' && out.at(-1) === 'unit')) out.push(written);
  }
  return out;
}

/** The normalised key of a value of a kind; null when the value has none (blank, too few digits). */
export function matchKey(kind: KeyKind, value: unknown): string | null {
  const t = text(value);
  if (!t) return null;
  switch (kind) {
    case 'email': return t.toLowerCase();
    case 'phone': {
      // the space before an extension goes with the other non-digits
      const digits = t.replace(/(?:ext\.?|extension|x|#)\s*\d{1,6}$/i, '').replace(/\D/g, '');
      return digits.length >= 7 ? digits.slice(-10) : null;
    }
    case 'firstName': {
      const folded = foldName(t);
      return folded ? canonicalFirstName(folded) : null;
    }
    case 'lastName': return foldName(t) || null;
    case 'postalCode': {
      const zip = /^(\d{4,5})(?:[\s-]\d{4})?$/.exec(t) ?? /^(\d{5})\d{4}$/.exec(t);
      return zip ? zip[1]!.padStart(5, '0') : t.toUpperCase().replace(/[^A-Z0-9]/g, '') || null;
    }
    case 'addressLine1': return addressWords(t).join('') || null;
  }
}

/** Which kind of key a field holds, by its name ('email', 'E-mail address' -> email); null: none. */
export function keyKindOfField(field: string): KeyKind | null {
  const f = field.toLowerCase().replace(/[^a-z0-9]/g, '');
  // an opt-out, a type or a status about an e-mail or phone is not one
  if (/(optout|optin|type|status|verified|bounced|consent|preference|format|extension|country)$/.test(f)) return null;
  if (/email/.test(f)) return 'email';
  if (/phone|mobile|^tel(ephone)?(number)?$|^cell(phone|number)?$/.test(f)) return 'phone';
  if (/^(firstname|givenname|forename|fname|first)$/.test(f)) return 'firstName';
  if (/^(lastname|surname|familyname|lname|last)$/.test(f)) return 'lastName';
  if (/postal|zip|postcode/.test(f)) return 'postalCode';
  if (/^(mailing|home|primary|billing|main)?(addressline1|address1|address|street|streetaddress|line1)$/.test(f)) return 'addressLine1';
  return null;
}

const digitsOf = (t: string) => t.replace(/\D/g, '');
const postalOf = (t: string) => t.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * Whether two values of a field say the same thing, so the record review does not mark them as a
 * difference: an e-mail in another case, a phone with the same digits ('(555) 022-3514' and
 * '+15550223514': a North American number with or without its 1), a postal code written another way
 * or with its ZIP+4 added ('87533' and '87533-0000', never two different +4s), an address line
 * abbreviated ('12 Elm St' and '12 Elm Street'); anything else, the same text in any case. Keys
 * for matching are looser (a phone's last 10 digits): a reviewer must still see a different
 * country code or extension.
 */
export function sameFieldValue(field: string, a: unknown, b: unknown): boolean {
  const [ta, tb] = [text(a), text(b)];
  if (ta.toLowerCase() === tb.toLowerCase()) return true;
  if (!ta || !tb) return false;
  switch (keyKindOfField(field)) {
    case 'phone': {
      const [da, db] = [digitsOf(ta), digitsOf(tb)];
      return da.length >= 7 && (da === db || da === `1${db}` || db === `1${da}`);
    }
    case 'postalCode': {
      const [pa, pb] = [postalOf(ta), postalOf(tb)];
      const [short, long] = pa.length <= pb.length ? [pa, pb] : [pb, pa];
      return pa === pb || (/^\d{5}$/.test(short) && /^\d{9}$/.test(long) && long.startsWith(short));
    }
    case 'addressLine1': {
      const ka = matchKey('addressLine1', ta);
      return ka !== null && ka === matchKey('addressLine1', tb);
    }
    default: return false;
  }
}
