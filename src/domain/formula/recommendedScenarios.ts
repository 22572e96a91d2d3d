/**
 * The search scenarios the matching step starts with when a formula has none saved, for its
 * destination; the engine's accuracy benchmark matches with the same scenarios, so they are a pure
 * function of what the formula connects: the destination's system, object and fields, and the
 * source's fields.
 *
 * A recipe lists scenarios by concept (e-mail, last name, postal code ...). Each concept is found
 * among the source fields by name similarity: a field's name or label, lower-cased, without
 * accents and punctuation and with camelCase split ('E-mail address' -> 'emailaddress'), must equal
 * one of the concept's spellings, or equal one once words such as 'home' or 'primary' are dropped
 * ('Home phone' -> 'phone'). An exact spelling beats one found by dropping words; between equals
 * the first field in the source's order wins. A scenario is recommended only when every one of its
 * concepts has a source field and a destination field the destination can be searched by.
 *
 * Recipes:
 * - Sandbox CRM constituents: Lookup ID (primary, only when the source carries it), E-mail
 *   (primary), then secondary: Last name and postal code, Phone, Name and address, Address and
 *   postal code, Swapped names and postal code, Name and city. Phone and Address and postal code find a person
 *   whose last name was mistyped, cut (Smith-Jones as Jones) or written in the first name's field;
 *   the swapped scenario searches the source's last name as a first name and its first name as a
 *   last name, so a form filled the wrong way round still finds its person. Name and city finds
 *   one who moved within their town and changed their e-mail and phone: a person to review, not a
 *   new record that would be a duplicate.
 * - Sandbox CRM gifts: Gift lookup ID (primary), then Constituent, amount and date (secondary).
 * - Any other destination: the constituent recipe without Lookup ID, its destination fields found
 *   by the same similarity among the searchable ones (Salesforce's MailingPostalCode is a postal code).
 *
 * With no primary scenario left, every scenario is primary (the tiers would search the same way).
 */
import { MAX_SEARCH_SCENARIOS } from './constants.ts';
import type { Matching, SearchScenario } from './parts.ts';

/** A field as the connectors describe it, or a bare name (a file's header). */
export interface FieldRef { name: string; label?: string; searchable?: boolean }

export interface RecommendationInput {
  /** the destination's system and object, as the formula names them */
  system: string;
  object: string;
  destinationFields: readonly FieldRef[];
  sourceFields: readonly FieldRef[];
}

interface Concept {
  /** spellings, each as `compact` writes it */
  spellings: readonly string[];
  /** whether words such as 'home' or 'primary' may be dropped to find it */
  qualified: boolean;
}

const person = (spellings: string[]): Concept => ({ spellings, qualified: true });
const exact = (spellings: string[]): Concept => ({ spellings, qualified: false });

const CONCEPTS = {
  lookupId: person(['lookupid']),
  email: person(['email', 'emailaddress', 'emailaddr', 'electronicmail']),
  firstName: person(['firstname', 'givenname', 'forename', 'fname', 'first']),
  lastName: person(['lastname', 'surname', 'familyname', 'lname', 'last']),
  postalCode: person(['postalcode', 'postcode', 'zip', 'zipcode', 'postal', 'zippostalcode', 'zippostcode', 'postalzipcode', 'postcodezip']),
  phone: person([
    'phone', 'phonenumber', 'telephone', 'telephonenumber', 'tel', 'mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone', 'cellnumber',
  ]),
  city: person(['city', 'town', 'cityortown', 'towncity']),
  addressLine1: person(['addressline1', 'address1', 'addr1', 'addressline', 'address', 'streetaddress', 'streetaddress1', 'street', 'line1']),
  giftLookupId: exact(['lookupid', 'giftlookupid']),
  constituentLookupId: exact(['constituentlookupid']),
  amount: exact(['amount', 'giftamount', 'donationamount', 'amt', 'totalamount']),
  giftDate: exact(['date', 'giftdate', 'donationdate', 'transactiondate', 'dategiven']),
} satisfies Record<string, Concept>;
export type ConceptName = keyof typeof CONCEPTS;

/** Words that say which of several e-mails, phones or addresses a field holds, not what it is. */
const QUALIFIERS = new Set([
  'primary', 'preferred', 'main', 'home', 'personal', 'private', 'work', 'business', 'mailing', 'billing',
  'contact', 'constituent', 'donor', 'supporter', 'member', 'person',
  // the payer as payment and event systems name them (Stripe's customer_email, a registrant's phone)
  'customer', 'payer', 'registrant', 'attendee', 'participant',
]);

interface Recipe {
  name: string;
  matchReason: string;
  isPrimary: boolean;
  /**
   * each concept, with the destination field when the recipe knows it, and the destination's
   * concept when it is another (a last name searched as a first name)
   */
  criteria: readonly { concept: ConceptName; destination?: string; as?: ConceptName }[];
}

const on = (concept: ConceptName, destination?: string, as?: ConceptName) => ({ concept, destination, ...(as ? { as } : {}) });

const SANDBOX_CONSTITUENTS: readonly Recipe[] = [
  { name: 'Lookup ID', matchReason: 'Same lookup ID', isPrimary: true, criteria: [on('lookupId', 'lookupId')] },
  { name: 'E-mail', matchReason: 'Same e-mail', isPrimary: true, criteria: [on('email', 'email')] },
  { name: 'Last name and postal code', matchReason: 'Same last name and postal code', isPrimary: false, criteria: [on('lastName', 'lastName'), on('postalCode', 'postalCode')] },
  { name: 'Phone', matchReason: 'Same phone', isPrimary: false, criteria: [on('phone', 'phone')] },
  {
    name: 'Name and address', matchReason: 'Same name and address', isPrimary: false,
    criteria: [on('firstName', 'firstName'), on('lastName', 'lastName'), on('addressLine1', 'addressLine1')],
  },
  {
    name: 'Address and postal code', matchReason: 'Same address and postal code', isPrimary: false,
    criteria: [on('addressLine1', 'addressLine1'), on('postalCode', 'postalCode')],
  },
  {
    name: 'Swapped names and postal code', matchReason: 'Same name written the other way round, and postal code', isPrimary: false,
    criteria: [on('lastName', 'firstName', 'firstName'), on('firstName', 'lastName', 'lastName'), on('postalCode', 'postalCode')],
  },
  {
    name: 'Name and city', matchReason: 'Same name and city', isPrimary: false,
    criteria: [on('firstName', 'firstName'), on('lastName', 'lastName'), on('city', 'city')],
  },
];

const SANDBOX_GIFTS: readonly Recipe[] = [
  { name: 'Gift lookup ID', matchReason: 'Same gift lookup ID', isPrimary: true, criteria: [on('giftLookupId', 'lookupId')] },
  {
    name: 'Constituent, amount and date', matchReason: 'Same constituent, amount and date', isPrimary: false,
    criteria: [on('constituentLookupId', 'constituentLookupId'), on('amount', 'amount'), on('giftDate', 'date')],
  },
];

/** The constituent recipe for destinations we know no better: destination fields by similarity too. */
const GENERIC_PERSON: readonly Recipe[] = SANDBOX_CONSTITUENTS
  .filter((r) => r.criteria.every((c) => c.concept !== 'lookupId'))
  .map((r) => ({ ...r, criteria: r.criteria.map((c) => on(c.concept, undefined, c.as)) }));

function recipeFor(system: string, object: string): readonly Recipe[] {
  if (system === 'sandbox-crm' && object === 'constituents') return SANDBOX_CONSTITUENTS;
  if (system === 'sandbox-crm' && object === 'gifts') return SANDBOX_GIFTS;
  return GENERIC_PERSON;
}

/** A name's words: accents dropped, camelCase split, lower case, letters and digits only. */
export function nameWords(text: string): string[] {
  return text
    .normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** How well a name spells a concept: 2 exactly, 1 once qualifiers are dropped, 0 not at all. */
function spells(text: string, concept: Concept): number {
  const words = nameWords(text);
  if (concept.spellings.includes(words.join(''))) return 2;
  if (!concept.qualified) return 0;
  const kept = words.filter((w) => !QUALIFIERS.has(w));
  return kept.length > 0 && kept.length < words.length && concept.spellings.includes(kept.join('')) ? 1 : 0;
}

/** The field that best spells the concept (by name or label), the first of equals; null when none does. */
export function bestField(fields: readonly FieldRef[], concept: ConceptName): FieldRef | null {
  let best: FieldRef | null = null;
  let bestScore = 0;
  for (const field of fields) {
    const score = Math.max(spells(field.name, CONCEPTS[concept]), field.label ? spells(field.label, CONCEPTS[concept]) : 0);
    if (score > bestScore) { best = field; bestScore = score; }
  }
  return best;
}

/** The concept a field's name or label spells best (exactly before once qualifiers are dropped), or null. */
export function conceptOf(field: FieldRef): ConceptName | null {
  let best: ConceptName | null = null;
  let bestScore = 0;
  for (const concept of Object.keys(CONCEPTS) as ConceptName[]) {
    const score = Math.max(spells(field.name, CONCEPTS[concept]), field.label ? spells(field.label, CONCEPTS[concept]) : 0);
    if (score > bestScore) { best = concept; bestScore = score; }
  }
  return best;
}

/** The recommended search scenarios for this destination and source, in search order. */
export function recommendedScenarios(input: RecommendationInput): SearchScenario[] {
  const searchable = input.destinationFields.filter((f) => f.searchable);
  const scenarios: SearchScenario[] = [];
  for (const recipe of recipeFor(input.system, input.object)) {
    const criteria = recipe.criteria.map((c) => {
      const destination = c.destination !== undefined ? searchable.find((f) => f.name === c.destination) ?? null : bestField(searchable, c.as ?? c.concept);
      const source = bestField(input.sourceFields, c.concept);
      return destination && source ? { source: source.name, destination: destination.name } : null;
    });
    if (criteria.some((c) => c === null)) continue;
    const found = criteria as { source: string; destination: string }[];
    // one field cannot stand for two concepts of the same scenario
    if (new Set(found.map((c) => c.source)).size < found.length || new Set(found.map((c) => c.destination)).size < found.length) continue;
    scenarios.push({ name: recipe.name, criteria: found, matchReason: recipe.matchReason, isPrimary: recipe.isPrimary });
  }
  const kept = scenarios.slice(0, MAX_SEARCH_SCENARIOS);
  return kept.some((s) => s.isPrimary) ? kept : kept.map((s) => ({ ...s, isPrimary: true }));
}

/** The whole matching part the step starts with: the recommended scenarios, in tiers when some are secondary. */
export function recommendedMatching(input: RecommendationInput): Matching {
  const scenarios = recommendedScenarios(input);
  return { scenarios, advanced: scenarios.some((s) => !s.isPrimary), autoPick: [] };
}
