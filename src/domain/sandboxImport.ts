/**
 * Importing constituents into the Sandbox CRM from a CSV file: which columns it reads (by header,
 * in the spellings people use), the file limits, and what the browser checks before sending.
 * Shared by the integrations service and the Connections screen's import dialog.
 */
import { extensionOf, MAX_UPLOAD_BYTES } from './upload.ts';

export const SANDBOX_IMPORT_FIELDS = [
  'firstName', 'lastName', 'middleName', 'preferredName', 'email', 'phone', 'addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country', 'title', 'lookupId',
] as const;
export type SandboxImportField = (typeof SANDBOX_IMPORT_FIELDS)[number];

/** Header spellings per field, compared lower-cased with anything but letters and digits dropped. */
const SPELLINGS: Record<SandboxImportField, string[]> = {
  firstName: ['firstname', 'first', 'givenname', 'forename', 'fname'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'lname'],
  middleName: ['middlename', 'middle', 'middlenames', 'secondname'],
  preferredName: ['preferredname', 'preferredfirstname', 'nickname', 'knownas', 'goesby', 'chosenname'],
  email: ['email', 'emailaddress', 'mail', 'primaryemail', 'personalemail'],
  phone: ['phone', 'phonenumber', 'telephone', 'tel', 'mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone', 'primaryphone', 'homephone'],
  addressLine1: ['addressline1', 'address1', 'address', 'street', 'streetaddress', 'line1', 'addressstreet', 'homeaddress'],
  addressLine2: ['addressline2', 'address2', 'line2', 'apartment', 'unit', 'suite'],
  city: ['city', 'town', 'locality', 'citytown'],
  state: ['state', 'province', 'region', 'stateprovince', 'county'],
  postalCode: ['postalcode', 'postcode', 'zip', 'zipcode', 'postal', 'zippostalcode'],
  country: ['country', 'countryname', 'countrycode', 'nation'],
  title: ['title', 'salutation', 'prefix', 'nameprefix', 'honorific'],
  lookupId: ['lookupid', 'constituentlookupid', 'constituentid', 'externalid'],
};
const BY_SPELLING = new Map(Object.entries(SPELLINGS).flatMap(([field, names]) => names.map((n) => [n, field as SandboxImportField])));

/** The constituent field a column header stands for ('E-mail Address' -> email), or null: ignored. */
export function importFieldOfHeader(header: string): SandboxImportField | null {
  return BY_SPELLING.get(header.toLowerCase().replace(/[^a-z0-9]/g, '')) ?? null;
}

/** Each field's name as a person reads it. */
export const IMPORT_FIELD_LABELS: Record<SandboxImportField, string> = {
  firstName: 'First name', lastName: 'Last name', middleName: 'Middle name', preferredName: 'Preferred name', email: 'Email', phone: 'Phone',
  addressLine1: 'Address line 1', addressLine2: 'Address line 2', city: 'City', state: 'State', postalCode: 'Postal code', country: 'Country', title: 'Title',
  lookupId: 'Lookup ID',
};

/** Header spellings shown to a user as examples, per field. */
export const HEADER_EXAMPLES: Record<SandboxImportField, string> = {
  firstName: 'First name', lastName: 'Last name or Surname', middleName: 'Middle name', preferredName: 'Preferred name or Nickname', email: 'Email', phone: 'Phone', addressLine1: 'Address line 1 or Street',
  addressLine2: 'Address line 2', city: 'City', state: 'State', postalCode: 'Postal code or ZIP', country: 'Country', title: 'Title',
  lookupId: 'Lookup ID',
};

/** Rows one import takes: a file with more is refused before any row goes in. */
export const MAX_IMPORT_ROWS = 50_000;
/** Constituents a tenant's Sandbox CRM holds at most: an import that would pass it is refused before any row goes in. */
export const MAX_SANDBOX_CONSTITUENTS = 250_000;

export const SANDBOX_IMPORT_MESSAGES = {
  columnsConflict: (field: SandboxImportField, a: { column: number; header: string }, b: { column: number; header: string }) =>
    `The columns "${a.header}" (column ${a.column}) and "${b.header}" (column ${b.column}) both give the ${IMPORT_FIELD_LABELS[field]} of a constituent. `
    + 'Keep one of them, or rename the other, and import the file again.',
  tooManyRows: (rows: number, max: number) => `The file has ${rows.toLocaleString('en')} rows; one import takes at most ${max.toLocaleString('en')}. Split it into smaller files.`,
  crmFull: (held: number, rows: number, max: number) =>
    `The Sandbox CRM holds ${held.toLocaleString('en')} constituents; the file's ${rows.toLocaleString('en')} rows would pass its limit of ${max.toLocaleString('en')}.`,
  choiceWidth: (chosen: number, columns: number) =>
    `The column choice names ${chosen} ${chosen === 1 ? 'column' : 'columns'}, but the file's header row has ${columns}. Choose the columns again for this file.`,
} as const;

/**
 * The column choice: which field each column of the file gives, in the file's order (null: the
 * column is left out). The import dialog suggests one from the headers and lets the user change
 * it; without one the server reads the columns by their headers.
 */
export type ColumnChoice = (SandboxImportField | null)[];

/** A column of the file as the dialog shows it: its header and the field it gives. */
export interface ImportColumn { header: string; field: SandboxImportField | null }

/** The bytes of a file the dialog sends for its header row: a header row longer than this is no header row. */
export const HEADER_SLICE_BYTES = 64 * 1024;

/**
 * The first choice, from the headers: a column gives the field its header names, unless a column
 * before it already gives that field (constituent_id beside lookup_id), so a suggestion never conflicts.
 */
export function suggestColumns(headers: readonly string[]): ImportColumn[] {
  const taken = new Set<SandboxImportField>();
  return headers.map((header) => {
    const field = importFieldOfHeader(header);
    if (!field || taken.has(field)) return { header, field: null };
    taken.add(field);
    return { header, field };
  });
}

/** What stands in the way of importing with this choice, in words; null when nothing does. */
export function columnChoiceProblem(choice: readonly (SandboxImportField | null)[]): string | null {
  const seen = new Set<SandboxImportField>();
  for (const field of choice) {
    if (!field) continue;
    if (seen.has(field)) return `Two columns give the ${IMPORT_FIELD_LABELS[field]}: choose it for one column only.`;
    seen.add(field);
  }
  return seen.has('lastName') ? null : 'Choose the column that gives the last name: every constituent needs one.';
}

/** The choice as the import request's `columns` parameter: fields in column order, comma-separated, empty for a column left out. */
export const columnChoiceParam = (choice: readonly (SandboxImportField | null)[]) => choice.map((f) => f ?? '').join(',');

/** The `columns` parameter read back; null when it names a field the import does not know. */
export function parseColumnChoice(param: string): ColumnChoice | null {
  const fields = new Set<string>(SANDBOX_IMPORT_FIELDS);
  const choice: ColumnChoice = [];
  for (const part of param.split(',')) {
    const name = part.trim();
    if (name === '') choice.push(null);
    else if (fields.has(name)) choice.push(name as SandboxImportField);
    else return null;
  }
  return choice;
}

/** The refused rows an answer lists; the count says how many there were in all. */
export const MAX_REFUSALS_LISTED = 100;

export type ImportFileProblem = 'not-csv' | 'too-big' | 'empty';

/** What the browser can tell before sending: only a .csv of at most 15MB with something in it. */
export function checkImportFile(file: { name: string; size: number }): ImportFileProblem | null {
  if (extensionOf(file.name) !== '.csv') return 'not-csv';
  if (file.size > MAX_UPLOAD_BYTES) return 'too-big';
  if (file.size === 0) return 'empty';
  return null;
}
