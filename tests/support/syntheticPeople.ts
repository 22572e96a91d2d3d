/**
 * Synthetic constituents for the matching accuracy checks: a CRM of US-like people (common names
 * deliberately frequent, households sharing an address and phone), messy incoming copies of some of
 * them, and incoming people who are not in the CRM (namesakes, household members, strangers), each
 * with the truth: the CRM id it belongs to, or none. Seeded, so every run sees the same data.
 * The copies are as hard as real imports get: first and last names swapped, typos in last names,
 * double-barrelled names cut to one part, CRM records without an e-mail, changed e-mails, moved
 * addresses and nicknames (MESS lists how often).
 * Left out: a Jr. living with his Sr. under the same name, which no field here tells apart.
 */

export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const chance = (rng: Rng, p: number) => rng() < p;
const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

/** Picks by Zipf-like frequency: the first of a list is the most common. */
function zipf<T>(xs: readonly T[], exponent = 0.9): (rng: Rng) => T {
  const cumulative: number[] = [];
  let sum = 0;
  xs.forEach((_, i) => { sum += 1 / (i + 1) ** exponent; cumulative.push(sum); });
  return (rng) => {
    const r = rng() * sum;
    let lo = 0, hi = xs.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (cumulative[mid]! < r) lo = mid + 1; else hi = mid; }
    return xs[lo]!;
  };
}

// ------------------------------------------------------------------------------------- names

const MALE = [
  'James', 'John', 'Robert', 'Michael', 'William', 'David', 'Richard', 'Joseph', 'Thomas', 'Charles', 'Christopher', 'Daniel', 'Matthew', 'Anthony',
  'Mark', 'Donald', 'Steven', 'Paul', 'Andrew', 'Joshua', 'Kenneth', 'Kevin', 'Brian', 'George', 'Timothy', 'Ronald', 'Edward', 'Jason', 'Jeffrey',
  'Ryan', 'Jacob', 'Gary', 'Nicholas', 'Eric', 'Jonathan', 'Stephen', 'Larry', 'Justin', 'Scott', 'Brandon', 'Benjamin', 'Samuel', 'Gregory',
  'Alexander', 'Frank', 'Patrick', 'Raymond', 'Jack', 'Dennis', 'Jerry', 'Tyler', 'Aaron', 'José', 'Adam', 'Nathan', 'Henry', 'Douglas', 'Zachary',
  'Peter', 'Kyle', 'Ethan', 'Walter', 'Noah', 'Jeremy', 'Christian', 'Keith', 'Roger', 'Terry', 'Gerald', 'Harold', 'Sean', 'Austin', 'Carl',
  'Arthur', 'Lawrence', 'Dylan', 'Jesse', 'Jordan', 'Bryan', 'Billy', 'Joe', 'Bruce', 'Gabriel', 'Logan', 'Albert', 'Willie', 'Alan', 'Juan',
  'Wayne', 'Elijah', 'Randy', 'Roy', 'Vincent', 'Ralph', 'Eugene', 'Russell', 'Bobby', 'Mason', 'Philip', 'Louis', 'André', 'Raúl', 'Luis',
];
const FEMALE = [
  'Mary', 'Patricia', 'Jennifer', 'Linda', 'Elizabeth', 'Barbara', 'Susan', 'Jessica', 'Sarah', 'Karen', 'Lisa', 'Nancy', 'Betty', 'Margaret',
  'Sandra', 'Ashley', 'Kimberly', 'Emily', 'Donna', 'Michelle', 'Carol', 'Amanda', 'Dorothy', 'Melissa', 'Deborah', 'Stephanie', 'Rebecca',
  'Sharon', 'Laura', 'Cynthia', 'Kathleen', 'Amy', 'Angela', 'Shirley', 'Anna', 'Brenda', 'Pamela', 'Emma', 'Nicole', 'Helen', 'Samantha',
  'Katherine', 'Christine', 'Debra', 'Rachel', 'Carolyn', 'Janet', 'Catherine', 'Maria', 'Heather', 'Diane', 'Ruth', 'Julie', 'Olivia', 'Joyce',
  'Virginia', 'Victoria', 'Kelly', 'Lauren', 'Christina', 'Joan', 'Evelyn', 'Judith', 'Megan', 'Andrea', 'Cheryl', 'Hannah', 'Jacqueline',
  'Martha', 'Gloria', 'Teresa', 'Ann', 'Sara', 'Madison', 'Frances', 'Kathryn', 'Janice', 'Jean', 'Abigail', 'Alice', 'Judy', 'Sophia', 'Grace',
  'Denise', 'Amber', 'Doris', 'Marilyn', 'Danielle', 'Beverly', 'Isabella', 'Theresa', 'Diana', 'Natalie', 'Brittany', 'Charlotte', 'Marie',
  'Kayla', 'Alexis', 'Lori', 'Zoë', 'Renée', 'Inés', 'Sofía', 'Chloé',
];
const LAST = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'García', 'Miller', 'Davis', 'Rodríguez', 'Martínez', 'Hernández', 'López', 'González', 'Wilson',
  'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Pérez', 'Thompson', 'White', 'Harris', 'Sánchez', 'Clark', 'Ramírez',
  'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson',
  'Baker', 'Hall', 'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts', 'Gómez', 'Phillips', 'Evans', 'Turner', 'Díaz', 'Parker', 'Cruz',
  'Edwards', 'Collins', 'Reyes', 'Stewart', 'Morris', 'Morales', 'Murphy', 'Cook', 'Rogers', 'Gutiérrez', 'Ortiz', 'Morgan', 'Cooper', 'Peterson',
  'Bailey', 'Reed', 'Kelly', 'Howard', 'Ramos', 'Kim', 'Cox', 'Ward', 'Richardson', 'Watson', 'Brooks', 'Chávez', 'Wood', 'James', 'Bennett',
  'Gray', 'Mendoza', 'Ruiz', 'Hughes', 'Price', 'Álvarez', 'Castillo', 'Sanders', 'Patel', 'Myers', 'Long', 'Ross', 'Foster', 'Jiménez', 'Powell',
  'Jenkins', 'Perry', 'Russell', 'Sullivan', 'Bell', 'Coleman', 'Butler', 'Henderson', 'Barnes', 'Gonzales', 'Fisher', 'Vásquez', 'Simmons',
  'Romero', 'Jordan', 'Patterson', 'Alexander', 'Hamilton', 'Graham', 'Reynolds', 'Griffin', 'Wallace', 'Moreno', 'West', 'Cole', 'Hayes',
  'Bryant', 'Herrera', 'Gibson', 'Ellis', 'Tran', 'Medina', 'Aguilar', 'Stevens', 'Murray', 'Ford', 'Castro', 'Marshall', 'Owens', 'Harrison',
  'Fernández', 'McDonald', 'Woods', 'Washington', 'Kennedy', 'Wells', 'Vargas', 'Henry', 'Chen', 'Freeman', 'Webb', 'Tucker', 'Guzmán', 'Burns',
  "O'Brien", "O'Connor", "O'Neill", "D'Angelo", "O'Reilly", 'MacDonald', 'Muñoz', 'Peña', 'Nuñez', "O'Sullivan",
];
const pickMale = zipf(MALE);
const pickFemale = zipf(FEMALE);
const pickLast = zipf(LAST, 0.8);
const pickFirst = (rng: Rng) => (chance(rng, 0.5) ? pickMale(rng) : pickFemale(rng));

/** Nicknames people go by, as they write them on forms. */
const NICKNAMES: Record<string, string[]> = {
  William: ['Bill', 'Billy', 'Will', 'Willie'], Robert: ['Bob', 'Bobby', 'Rob', 'Robbie'], Richard: ['Dick', 'Rick', 'Rich'], James: ['Jim', 'Jimmy', 'Jamie'],
  John: ['Jack', 'Johnny'], Michael: ['Mike', 'Mikey'], Thomas: ['Tom', 'Tommy'], Joseph: ['Joe', 'Joey'], Charles: ['Charlie', 'Chuck'],
  Christopher: ['Chris'], Daniel: ['Dan', 'Danny'], Matthew: ['Matt'], Anthony: ['Tony'], Donald: ['Don'], Steven: ['Steve'], Andrew: ['Andy', 'Drew'],
  Joshua: ['Josh'], Kenneth: ['Ken', 'Kenny'], Timothy: ['Tim'], Ronald: ['Ron', 'Ronnie'], Edward: ['Ed', 'Eddie', 'Ted'], Jeffrey: ['Jeff'],
  Nicholas: ['Nick'], Jonathan: ['Jon'], Stephen: ['Steve'], Lawrence: ['Larry'], Benjamin: ['Ben'], Samuel: ['Sam'], Gregory: ['Greg'],
  Alexander: ['Alex'], Patrick: ['Pat'], Raymond: ['Ray'], Gerald: ['Jerry'], Harold: ['Harry'], Zachary: ['Zach'], Peter: ['Pete'],
  Douglas: ['Doug'], Walter: ['Walt'], Albert: ['Al'], Eugene: ['Gene'], Philip: ['Phil'], Vincent: ['Vince'], Russell: ['Russ'],
  Elizabeth: ['Liz', 'Beth', 'Betty', 'Lizzie'], Margaret: ['Peggy', 'Maggie', 'Meg'], Katherine: ['Kate', 'Katie', 'Kathy'], Catherine: ['Kate', 'Cathy'],
  Kathryn: ['Kate', 'Katie'], Kathleen: ['Kathy'], Patricia: ['Pat', 'Patty', 'Trish'], Jennifer: ['Jen', 'Jenny'], Susan: ['Sue', 'Susie'],
  Jessica: ['Jess'], Barbara: ['Barb'], Deborah: ['Debbie', 'Deb'], Rebecca: ['Becky'], Pamela: ['Pam'], Cynthia: ['Cindy'], Samantha: ['Sam'],
  Christine: ['Chris', 'Chrissy'], Christina: ['Tina'], Victoria: ['Vicky'], Virginia: ['Ginny'], Abigail: ['Abby'], Judith: ['Judy'],
  Dorothy: ['Dot'], Sandra: ['Sandy'], Amanda: ['Mandy'], Teresa: ['Terry', 'Tess'], Theresa: ['Tess'], Frances: ['Fran'],
  Isabella: ['Bella'], Natalie: ['Nat'], Jacqueline: ['Jackie'], Stephanie: ['Steph'], Evelyn: ['Evie'],
};

// ---------------------------------------------------------------------------------- places

/** City, state, the ZIP prefix and area code of its people. */
const PLACES: [string, string, string, string][] = [
  ['Portland', 'OR', '972', '503'], ['Seattle', 'WA', '981', '206'], ['Boise', 'ID', '837', '208'], ['Sacramento', 'CA', '958', '916'],
  ['Oakland', 'CA', '946', '510'], ['Tucson', 'AZ', '857', '520'], ['Denver', 'CO', '802', '303'], ['Santa Fe', 'NM', '875', '505'],
  ['Austin', 'TX', '787', '512'], ['San Antonio', 'TX', '782', '210'], ['Tulsa', 'OK', '741', '918'], ['Omaha', 'NE', '681', '402'],
  ['Madison', 'WI', '537', '608'], ['Minneapolis', 'MN', '554', '612'], ['Chicago', 'IL', '606', '312'], ['Columbus', 'OH', '432', '614'],
  ['Detroit', 'MI', '482', '313'], ['Louisville', 'KY', '402', '502'], ['Nashville', 'TN', '372', '615'], ['Atlanta', 'GA', '303', '404'],
  ['Savannah', 'GA', '314', '912'], ['Asheville', 'NC', '288', '828'], ['Richmond', 'VA', '232', '804'], ['Baltimore', 'MD', '212', '410'],
  ['Philadelphia', 'PA', '191', '215'], ['Newark', 'NJ', '071', '973'], ['Hartford', 'CT', '061', '860'], ['Providence', 'RI', '029', '401'],
  ['Boston', 'MA', '021', '617'], ['Worcester', 'MA', '016', '508'], ['Burlington', 'VT', '054', '802'], ['Portland', 'ME', '041', '207'],
  ['Albany', 'NY', '122', '518'], ['Buffalo', 'NY', '142', '716'], ['Miami', 'FL', '331', '305'], ['Tampa', 'FL', '336', '813'],
];
const STREETS = [
  'Main', 'Oak', 'Maple', 'Park', 'Pine', 'Cedar', 'Elm', 'Washington', 'Lake', 'Hill', 'Walnut', 'Spring', 'North', 'Ridge', 'Church', 'Willow',
  'Mill', 'Sunset', 'Jackson', 'Cherry', 'Highland', 'Franklin', 'Jefferson', 'Lincoln', 'Madison', 'Meadow', 'Forest', 'River', 'Chestnut',
  'Hickory', 'Center', 'Adams', 'Dogwood', 'Birch', 'Valley', 'Laurel', 'Prospect', 'Magnolia', 'Summit', 'Grove', 'Broad', 'Locust', 'Poplar',
  "Saint Mary's", 'Sycamore', 'Orchard', 'Harbor', 'Mountain View', 'Juniper', 'Aspen', 'Holly', 'Bay', 'Fairview', 'Railroad', 'College',
  '1st', '2nd', '3rd', '4th', '5th', '6th', 'Second', 'Third',
];
/** Street types: full, with the abbreviations people write. */
const STREET_TYPES: [string, string[]][] = [
  ['Street', ['St', 'St.', 'Str']], ['Avenue', ['Ave', 'Ave.', 'Av']], ['Road', ['Rd', 'Rd.']], ['Drive', ['Dr', 'Dr.']], ['Lane', ['Ln', 'Ln.']],
  ['Court', ['Ct', 'Ct.']], ['Boulevard', ['Blvd', 'Blvd.']], ['Place', ['Pl', 'Pl.']], ['Way', ['Way']], ['Circle', ['Cir', 'Cir.']],
  ['Terrace', ['Ter', 'Terr']], ['Parkway', ['Pkwy']],
];
const DIRECTIONS: [string, string][] = [['North', 'N'], ['South', 'S'], ['East', 'E'], ['West', 'W']];
const UNIT_WORDS = ['Apt', 'Apt.', 'Apartment', 'Unit', '#'];
const DOMAINS = ['gmail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'aol.com', 'icloud.com', 'comcast.net', 'verizon.net', 'proton.me', 'mac.com'];

// ---------------------------------------------------------------------------------- people

export interface Person {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  addressLine1: string;
  city: string;
  state: string;
  postalCode: string;
}

/** An address as its parts, so a copy can write it another way. */
interface Address { number: string; direction: [string, string] | null; street: string; type: [string, string[]]; unit: string | null }

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]/g, '');

function writeAddress(a: Address, rng: Rng, abbreviate: boolean): string {
  const words = [a.number];
  if (a.direction) words.push(abbreviate ? a.direction[1] : a.direction[0]);
  words.push(a.street, abbreviate ? pick(rng, a.type[1]) : a.type[0]);
  let line = words.join(' ');
  if (a.unit) {
    const word = pick(rng, UNIT_WORDS);
    line += `${chance(rng, 0.4) ? ',' : ''} ${word === '#' ? `#${a.unit}` : `${word} ${a.unit}`}`;
  }
  return line;
}

function randomAddress(rng: Rng): Address {
  return {
    number: String(chance(rng, 0.7) ? int(rng, 1, 999) : int(rng, 1000, 19999)),
    direction: chance(rng, 0.15) ? pick(rng, DIRECTIONS) : null,
    street: pick(rng, STREETS),
    type: pick(rng, STREET_TYPES),
    unit: chance(rng, 0.15) ? `${int(rng, 1, 40)}${chance(rng, 0.3) ? pick(rng, ['A', 'B', 'C']) : ''}` : null,
  };
}

function formatPhone(digits10: string, rng: Rng): string {
  const [a, b, c] = [digits10.slice(0, 3), digits10.slice(3, 6), digits10.slice(6)];
  return pick(rng, [`(${a}) ${b}-${c}`, `${a}-${b}-${c}`, `${a}.${b}.${c}`, `${a}${b}${c}`, `+1 ${a} ${b} ${c}`, `+1 ${a}.${b}.${c}`, `1-${a}-${b}-${c}`]);
}

/** A person with their address's parts and phone digits, for making copies. */
interface Made { person: Person; address: Address; phoneDigits: string; place: (typeof PLACES)[number]; zip: string }

const madeOf = new WeakMap<Person, Made>();
/** The CRM people at an address (a household shares its address's parts). */
const residents = new WeakMap<Address, Person[]>();

/** Makes people whose e-mails and phones are their own: never one already made or reserved. */
export class PeopleFactory {
  private readonly emails = new Set<string>();
  private readonly phones = new Set<string>();
  constructor(private readonly rng: Rng) {}

  /** Keeps another's e-mail and phone from being made again. */
  reserve(person: Person): void {
    this.emails.add(person.email.toLowerCase());
    const made = madeOf.get(person);
    if (made) this.phones.add(made.phoneDigits);
  }

  email(first: string, last: string): string {
    const rng = this.rng;
    for (let tries = 0; ; tries++) {
      const [f, l] = [fold(first), fold(last)];
      const local = pick(rng, [`${f}.${l}`, `${f}${l}`, `${f[0]}${l}`, `${f}_${l}`, `${l}.${f}`, `${f}${l[0]}`])
        // a common name's few thousand short forms run out in a CRM of a million: then a longer number
        + (tries < 50 ? (chance(rng, 0.6) ? String(int(rng, 1, 99)) : '') : String(int(rng, 100, 99_999)));
      const email = `${local}@${pick(rng, DOMAINS)}`;
      if (!this.emails.has(email)) { this.emails.add(email); return email; }
    }
  }

  phone(areaCode: string): string {
    for (;;) {
      const digits = `${areaCode}${int(this.rng, 200, 999)}${String(int(this.rng, 0, 9999)).padStart(4, '0')}`;
      if (!this.phones.has(digits)) { this.phones.add(digits); return digits; }
    }
  }

  person(id: string, over: { first?: string; last?: string; at?: Made; sharePhone?: boolean; shareEmail?: boolean } = {}): Person {
    const rng = this.rng;
    const first = over.first ?? pickFirst(rng);
    const last = over.last ?? (chance(rng, MESS.crmHyphenated) ? `${pickLast(rng)}-${pickLast(rng)}` : pickLast(rng));
    const place = over.at?.place ?? pick(rng, PLACES);
    const zip = over.at?.zip ?? `${place[2]}${String(int(rng, 1, 20)).padStart(2, '0')}`;
    const address = over.at?.address ?? randomAddress(rng);
    const phoneDigits = over.at && over.sharePhone ? over.at.phoneDigits : this.phone(place[3]);
    const email = over.at && over.shareEmail ? over.at.person.email : this.email(first, last);
    const plain = chance(rng, 0.3);
    const person: Person = {
      id, firstName: plain ? stripAccents(first) : first, lastName: plain ? stripAccents(last) : last,
      email: chance(rng, 0.15) ? email.replace(/^./, (c) => c.toUpperCase()) : email,
      phone: formatPhone(phoneDigits, rng),
      addressLine1: writeAddress(address, rng, chance(rng, 0.5)),
      city: place[0], state: place[1], postalCode: zip,
    };
    madeOf.set(person, { person, address, phoneDigits, place, zip });
    return person;
  }
}

/**
 * The CRM: `n` people, about one in eight living with the person before them (same last name,
 * address and often phone, sometimes a shared e-mail); a few have no e-mail or phone on file.
 */
export function generatePeople(n: number, seed: number): Person[] {
  const rng = createRng(seed);
  const factory = new PeopleFactory(rng);
  const people: Person[] = [];
  for (let i = 0; i < n; i++) {
    const id = `C${String(i + 1).padStart(6, '0')}`;
    const before = people.at(-1);
    const person = before && chance(rng, 0.12)
      ? factory.person(id, { last: before.lastName, at: madeOf.get(before)!, sharePhone: chance(rng, 0.5), shareEmail: chance(rng, 0.1) })
      : factory.person(id);
    if (chance(rng, MESS.crmWithoutEmail)) person.email = '';
    if (chance(rng, MESS.crmWithoutPhone)) person.phone = '';
    const { address } = madeOf.get(person)!;
    residents.set(address, [...residents.get(address) ?? [], person]);
    people.push(person);
  }
  return people;
}

// ------------------------------------------------------------------------------ messiness

/** How often each kind of mess happens, to CRM records and to the incoming copies of CRM people. */
export const MESS = {
  crmHyphenated: 0.06,
  crmWithoutEmail: 0.2,
  crmWithoutPhone: 0.1,
  nickname: 0.25,
  lastNameTypo: 0.1,
  swappedNames: 0.04,
  changedEmail: 0.15,
  moved: 0.15,
};

/** One typing slip: a letter replaced, dropped, doubled or swapped with the next. */
export function typo(value: string, rng: Rng): string {
  if (value.length < 4) return value;
  const i = int(rng, 1, value.length - 2);
  const letter = 'aeioulnrst'[int(rng, 0, 9)]!;
  switch (int(rng, 0, 3)) {
    case 0: return value.slice(0, i) + letter + value.slice(i + 1);
    case 1: return value.slice(0, i) + value.slice(i + 1);
    case 2: return value.slice(0, i) + value[i] + value.slice(i);
    default: return value.slice(0, i) + value[i + 1] + value[i] + value.slice(i + 2);
  }
}

const stripAccents = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFC');
/** The accented spelling of a name written without its accents (Jose -> José). */
const ACCENTED = new Map([...MALE, ...FEMALE, ...LAST].filter((n) => stripAccents(n) !== n).map((n) => [stripAccents(n), n]));

/** The way a form or a spreadsheet writes a name back: case, accents, apostrophes, hyphens. */
function messName(name: string, rng: Rng, upper: boolean, lower: boolean): string {
  let out = name;
  if (chance(rng, 0.5)) out = stripAccents(out);
  else out = ACCENTED.get(out) ?? out;
  if (out.includes("'")) out = pick(rng, [out, out.replace("'", ''), out.replace("'", ' '), out.replace("'", '\u2019')]);
  // a double-barrelled name joined another way, or cut to either of its parts
  if (out.includes('-') && chance(rng, 0.6)) out = pick(rng, [out.replace('-', ' '), out.replace('-', ''), out.split('-')[0]!, out.split('-')[1]!]);
  if (upper) out = out.toUpperCase();
  else if (lower) out = out.toLowerCase();
  return out;
}

/** How a nickname and its full name meet again: either side can be the one the CRM holds. */
function nicknameOf(first: string, rng: Rng): string | null {
  const plain = stripAccents(first);
  const nick = NICKNAMES[plain];
  if (nick?.length) return pick(rng, nick);
  const formal = Object.entries(NICKNAMES).filter(([, ns]) => ns.includes(plain)).map(([f]) => f);
  return formal.length ? pick(rng, formal) : null;
}

/** A given name with every name the nickname list ties it to, folded. */
function givenNameFamily(name: string): Set<string> {
  const plain = stripAccents(name);
  const family = new Set([plain]);
  for (const [formal, nicks] of Object.entries(NICKNAMES)) {
    if (formal === plain || nicks.includes(plain)) [formal, ...nicks].forEach((n) => family.add(n));
  }
  return new Set([...family].map(fold));
}

const sameGivenName = (a: string, b: string): boolean => {
  const family = givenNameFamily(a);
  return [...givenNameFamily(b)].some((n) => family.has(n));
};

/** An incoming record as a source file has it: its columns, as text ('' when missing). */
export type IncomingValues = Record<(typeof SOURCE_COLUMNS)[number], string>;

/** The incoming file's columns, in the file's order. */
export const SOURCE_COLUMNS = ['First Name', 'Last Name', 'Email', 'Phone', 'Address', 'City', 'State', 'ZIP'] as const;

/** The destination (Sandbox CRM constituent) field each column maps to. */
export const COLUMN_FIELDS: Record<(typeof SOURCE_COLUMNS)[number], keyof Omit<Person, 'id'>> = {
  'First Name': 'firstName', 'Last Name': 'lastName', Email: 'email', Phone: 'phone', Address: 'addressLine1', City: 'city', State: 'state', ZIP: 'postalCode',
};

/**
 * The same person as another system sends them: nicknames, case, accents, apostrophes, hyphens,
 * one-letter typos, phone formats, ZIP+4, abbreviations, missing fields, and for some a changed
 * e-mail, phone or address. `factory` gives the new e-mails and phones: one that has reserved the
 * CRM's, so a changed e-mail is never another CRM person's. `mess`, when given, gains a word for
 * each hard change made (a nickname, swapped names, a move ...), so misses can be told apart.
 */
export function messyCopy(person: Person, rng: Rng, factory: PeopleFactory = new PeopleFactory(rng), mess: Mess[] = []): IncomingValues {
  const made = madeOf.get(person);
  const upper = chance(rng, 0.1);
  const lower = !upper && chance(rng, 0.1);

  let first = person.firstName;
  const r = rng();
  if (r < MESS.nickname) {
    first = nicknameOf(first, rng) ?? first;
    if (first !== person.firstName) mess.push('nickname');
  } else if (r < MESS.nickname + 0.04) { first = typo(first, rng); mess.push('first-name typo'); }
  else if (r < MESS.nickname + 0.06) { first = `${first[0]}${chance(rng, 0.5) ? '.' : ''}`; mess.push('initial'); }
  first = messName(first, rng, upper, lower);
  let last = messName(person.lastName, rng, upper, lower);
  if (person.lastName.includes('-') && !/[- ]/.test(last) && fold(last) !== fold(person.lastName)) mess.push('cut double-barrelled name');
  if (chance(rng, MESS.lastNameTypo)) { last = typo(last, rng); mess.push('last-name typo'); }
  // a form whose columns were filled the wrong way round
  if (chance(rng, MESS.swappedNames)) { [first, last] = [last, first]; mess.push('swapped names'); }

  let email = person.email;
  if (!email) mess.push('no e-mail in the CRM');
  const e = rng();
  if (e < MESS.changedEmail) { email = factory.email(first, last); mess.push('changed e-mail'); }
  else if (e < MESS.changedEmail + 0.08) email = '';
  else if (e < 0.28) email = email.toUpperCase();
  else if (e < 0.38) email = email.toLowerCase();
  if (email && chance(rng, 0.03)) email = ` ${email} `;

  let phone = person.phone;
  const p = rng();
  if (p < 0.15) phone = '';
  else if (p < 0.2 && made) phone = formatPhone(factory.phone(made.place[3]), rng);
  else if (made && phone) phone = chance(rng, 0.05) ? `${formatPhone(made.phoneDigits, rng)} ext. ${int(rng, 1, 999)}` : formatPhone(made.phoneDigits, rng);

  let address = person.addressLine1;
  let city = person.city;
  let state = person.state;
  let zip = person.postalCode;
  const a = rng();
  if (a < MESS.moved) {
    mess.push('moved');
    // moved: a new address, often in another city
    const place = chance(rng, 0.5) ? pick(rng, PLACES) : made?.place ?? pick(rng, PLACES);
    address = writeAddress(randomAddress(rng), rng, chance(rng, 0.5));
    [city, state, zip] = [place[0], place[1], `${place[2]}${String(int(rng, 1, 20)).padStart(2, '0')}`];
  } else if (a < MESS.moved + 0.1) address = '';
  else if (made) {
    const unit = made.address.unit && chance(rng, 0.3) ? null : made.address.unit;
    address = writeAddress({ ...made.address, unit }, rng, chance(rng, 0.5));
    if (chance(rng, 0.05)) address = typo(address, rng);
  }
  if (upper) address = address.toUpperCase();
  else if (lower) address = address.toLowerCase();
  if (chance(rng, 0.1)) city = '';
  else if (upper) city = city.toUpperCase();
  if (chance(rng, 0.05)) state = '';
  const z = rng();
  if (z < 0.08) zip = '';
  else if (z < 0.28) zip = `${zip}-${String(int(rng, 0, 9999)).padStart(4, '0')}`;
  if (zip.startsWith('0') && chance(rng, 0.5)) zip = zip.slice(1); // a spreadsheet read it as a number

  return { 'First Name': first, 'Last Name': last, Email: email, Phone: phone, Address: address, City: city, State: state, ZIP: zip };
}

/** A person written as a source file row, with the light messiness any export has. */
function asRow(person: Person, rng: Rng): IncomingValues {
  const made = madeOf.get(person)!;
  return {
    'First Name': messName(person.firstName, rng, false, false), 'Last Name': messName(person.lastName, rng, false, false),
    Email: person.email, Phone: person.phone ? formatPhone(made.phoneDigits, rng) : '', Address: person.addressLine1,
    City: person.city, State: person.state, ZIP: chance(rng, 0.2) ? `${person.postalCode}-${String(int(rng, 0, 9999)).padStart(4, '0')}` : person.postalCode,
  };
}

export type IncomingKind = 'copy' | 'namesake' | 'household' | 'stranger';

/** The hard changes a copy can carry. */
export type Mess = 'nickname' | 'first-name typo' | 'initial' | 'cut double-barrelled name' | 'last-name typo' | 'swapped names'
  | 'no e-mail in the CRM' | 'changed e-mail' | 'moved';

export interface IncomingRecord {
  values: IncomingValues;
  /** the CRM id this record is, or null: someone the CRM does not hold */
  truth: string | null;
  kind: IncomingKind;
  /** a copy's hard changes */
  mess: Mess[];
}

/**
 * `n` incoming records: `existingShare` of them messy copies of CRM people, the rest people the CRM
 * does not hold: namesakes of CRM people (same first and last name, maybe a nickname), members of a
 * CRM person's household (same last name and address, often the phone, sometimes the e-mail), and
 * strangers drawn like the CRM (so common names recur).
 */
export function generateIncoming(crm: readonly Person[], n: number, seed: number, existingShare = 0.7): IncomingRecord[] {
  const rng = createRng(seed);
  const factory = new PeopleFactory(rng);
  // the new people's e-mails and phones are never a CRM person's, unless shared on purpose
  for (const p of crm) factory.reserve(p);
  const records: IncomingRecord[] = [];
  for (let i = 0; i < n; i++) {
    const id = `N${String(i + 1).padStart(6, '0')}`;
    if (chance(rng, existingShare)) {
      const person = pick(rng, crm);
      const mess: Mess[] = [];
      records.push({ values: messyCopy(person, rng, factory, mess), truth: person.id, kind: 'copy', mess });
      continue;
    }
    const k = rng();
    const other = pick(rng, crm);
    if (k < 0.4) {
      const first = chance(rng, 0.2) ? nicknameOf(other.firstName, rng) ?? other.firstName : other.firstName;
      records.push({ values: asRow(factory.person(id, { first, last: other.lastName }), rng), truth: null, kind: 'namesake', mess: [] });
    } else if (k < 0.6) {
      // another given name: a Joe living with a Joseph of the same surname is his namesake, which only a suffix tells apart
      const home = madeOf.get(other)!;
      let first = pickFirst(rng);
      while (residents.get(home.address)!.some((p) => sameGivenName(first, p.firstName))) first = pickFirst(rng);
      const member = factory.person(id, { first, last: other.lastName, at: home, sharePhone: chance(rng, 0.5), shareEmail: chance(rng, 0.15) && !!other.email });
      records.push({ values: asRow(member, rng), truth: null, kind: 'household', mess: [] });
    } else {
      records.push({ values: asRow(factory.person(id), rng), truth: null, kind: 'stranger', mess: [] });
    }
  }
  return records;
}
