/**
 * Connection settings fields (SPEC.md sections 3 and 5). Each system's settings are one valibot
 * object schema built from these fields; every field carries its form metadata (label, kind,
 * secret or not, when it applies) inside the schema, so the same schema drives the form, checks
 * the API request and decides what is stored encrypted.
 */
import * as v from 'valibot';

/** SPEC.md section 5, word for word. */
export const CONNECTION_FIELD_MESSAGE = 'Field is required and can be 150 characters at most.';
export const CONNECTION_FIELD_MAX = 150;
export const INVALID_URL_MESSAGE = 'Enter a valid URL, starting with https:// or http://.';
export const INVALID_EMAIL_MESSAGE = 'Enter a valid e-mail address.';
export const INVALID_PORT_MESSAGE = 'Enter a port number from 1 to 65535.';
export const INVALID_CHOICE_MESSAGE = 'Choose one of the options.';
export const INVALID_CHARACTERS_MESSAGE = 'This field contains characters that are not allowed.';
/** An SSH private key is longer than any other field; it still has a limit. */
export const KEY_FIELD_MAX = 10_000;
export const KEY_FIELD_MESSAGE = 'Paste the whole private key (at most 10,000 characters).';
/** A saved secret left empty by an edit that moves the connection elsewhere. */
export const REENTER_SECRET_MESSAGE = 'Enter this again: saved secrets are never sent to a new address.';

export type FieldKind = 'text' | 'secret' | 'url' | 'email' | 'port' | 'select' | 'key';

export interface FieldOption { value: string; label: string }

export interface FieldMeta {
  key: string;
  kind: FieldKind;
  label: string;
  /** stored encrypted, never sent back to the browser */
  secret: boolean;
  /** required whenever the field applies */
  required: boolean;
  options?: FieldOption[];
  /** the field applies only while another field has one of these values */
  when?: { field: string; is: string[] };
  /** the field always applies but is required only while another field has one of these values */
  requiredWhen?: { field: string; is: string[] };
  /**
   * a formula's additional setting that matters only to these objects of its end (a gift batch
   * prefix to gifts); without it the field applies to every object
   */
  objects?: string[];
  defaultValue?: string;
  placeholder?: string;
  description?: string;
  /**
   * the field says where Tributary connects (a URL, a host, a port, a custom domain): an edit
   * that changes it does not keep saved secrets, so they never go to an address they were not
   * entered for
   */
  endpoint?: boolean;
}

type FieldSchema = v.GenericSchema<unknown, string | undefined>;

interface FieldOptions {
  required?: boolean;
  when?: { field: string; is: string[] };
  requiredWhen?: { field: string; is: string[] };
  objects?: string[];
  /** a further format rule */
  pattern?: { regex: RegExp; message: string };
  /** a rule a pattern cannot say well, with its own message */
  check?: { test: (value: string) => boolean; message: string };
  defaultValue?: string;
  placeholder?: string;
  description?: string;
  endpoint?: boolean;
}

const withMeta = (schema: v.GenericSchema<string, string>, meta: Omit<FieldMeta, 'key'>): FieldSchema => {
  // fields that apply only sometimes, and optional ones, may be absent or empty; a whole-object
  // check (settingsSchema) makes the conditional ones required while they apply
  const optional = !meta.required || !!meta.when || !!meta.requiredWhen;
  const base: v.GenericSchema<unknown, string | undefined> = optional
    ? v.optional(v.union([v.literal(''), schema], (issue) => issue.issues?.at(-1)?.message ?? issue.message))
    : schema;
  return v.pipe(base, v.metadata({ field: meta })) as FieldSchema;
};

const text150 = (extra: v.PipeItem<string, string, v.BaseIssue<unknown>>[] = []): v.GenericSchema<string, string> => {
  const base = v.pipe(
    v.string(CONNECTION_FIELD_MESSAGE),
    v.trim(),
    v.minLength(1, CONNECTION_FIELD_MESSAGE),
    v.maxLength(CONNECTION_FIELD_MAX, CONNECTION_FIELD_MESSAGE),
    // control characters never belong in a connection setting
    v.regex(/^[^\u0000-\u001f\u007f]*$/, INVALID_CHARACTERS_MESSAGE),
  );
  return (extra.length ? v.pipe(base, ...extra) : base) as v.GenericSchema<string, string>;
};

const patternOf = (o: FieldOptions) => [
  ...(o.pattern ? [v.regex(o.pattern.regex, o.pattern.message)] : []),
  ...(o.check ? [v.check(o.check.test, o.check.message)] : []),
];

const metaOf = (kind: FieldKind, label: string, secret: boolean, o: FieldOptions, options?: FieldOption[]): Omit<FieldMeta, 'key'> => ({
  kind, label, secret, required: o.required ?? true,
  ...(options ? { options } : {}),
  ...(o.when ? { when: o.when } : {}),
  ...(o.requiredWhen ? { requiredWhen: o.requiredWhen } : {}),
  ...(o.objects ? { objects: o.objects } : {}),
  ...(o.defaultValue !== undefined ? { defaultValue: o.defaultValue } : {}),
  ...(o.placeholder ? { placeholder: o.placeholder } : {}),
  ...(o.description ? { description: o.description } : {}),
  ...(o.endpoint ? { endpoint: true } : {}),
});

/** Plain text: required, at most 150 characters. */
export const text = (label: string, o: FieldOptions = {}) => withMeta(text150(patternOf(o)), metaOf('text', label, false, o));

/** A secret (API key, client secret, password, access token): stored encrypted, shown as saved. */
export const secret = (label: string, o: FieldOptions = {}) => withMeta(text150(patternOf(o)), metaOf('secret', label, true, o));

/** An absolute http(s) URL; it says where Tributary connects, so it is an endpoint setting. */
export const url = (label: string, o: FieldOptions = {}) =>
  withMeta(text150([v.url(INVALID_URL_MESSAGE), v.regex(/^https?:\/\//i, INVALID_URL_MESSAGE), ...patternOf(o)]), metaOf('url', label, false, { endpoint: true, ...o }));

/** An e-mail address (used as a user name by some systems). */
export const email = (label: string, o: FieldOptions = {}) =>
  withMeta(text150([v.email(INVALID_EMAIL_MESSAGE)]), metaOf('email', label, false, o));

/** A TCP port, kept as text like every other setting. */
export const port = (label: string, o: FieldOptions = {}) =>
  withMeta(text150([v.regex(/^\d{1,5}$/, INVALID_PORT_MESSAGE), v.check((s) => Number(s) >= 1 && Number(s) <= 65535, INVALID_PORT_MESSAGE)]),
    metaOf('port', label, false, o));

/** One of a fixed set of choices (authentication type, sandbox or production, region). */
export const choice = (label: string, options: FieldOption[], o: FieldOptions = {}) =>
  withMeta(v.pipe(v.string(CONNECTION_FIELD_MESSAGE), v.picklist(options.map((x) => x.value), INVALID_CHOICE_MESSAGE)) as v.GenericSchema<string, string>,
    metaOf('select', label, false, { defaultValue: options[0]?.value, ...o }, options));

/** A private key in PEM or OpenSSH form: a secret, and longer than 150 characters. */
export const privateKey = (label: string, o: FieldOptions = {}) =>
  withMeta(v.pipe(
    v.string(KEY_FIELD_MESSAGE), v.trim(), v.minLength(1, KEY_FIELD_MESSAGE), v.maxLength(KEY_FIELD_MAX, KEY_FIELD_MESSAGE),
    v.regex(/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----$/, 'This is not a private key in PEM or OpenSSH form.'),
  ) as v.GenericSchema<string, string>, metaOf('key', label, true, o));

/** The environment choice several vendors offer. */
export const ENVIRONMENT_OPTIONS: FieldOption[] = [
  { value: 'production', label: 'Production' },
  { value: 'sandbox', label: 'Sandbox' },
];

export type SettingsValues = Record<string, string>;
export type SettingsSchema = v.GenericSchema<unknown, SettingsValues>;

/**
 * One system's settings as a valibot schema: the fields, plus the rule that a field which applies
 * only while another field has certain values is then required.
 */
export function settingsSchema(entries: Record<string, FieldSchema>): SettingsSchema {
  const conditional = Object.entries(entries)
    .map(([key, schema]) => ({ key, meta: fieldMeta(schema) }))
    .filter((f) => f.meta.required && (f.meta.when || f.meta.requiredWhen));
  const metas = Object.entries(entries).map(([key, schema]) => ({ key, meta: fieldMeta(schema) }));
  return v.pipe(
    v.unknown(),
    // fields that do not apply are not checked (a stale password after switching to an SSH key);
    // a missing field that applies counts as empty, so it gets the field's own message
    v.transform((input) => {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
      const values = input as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const { key, meta } of metas) {
        if (meta.when && !meta.when.is.includes(String(values[meta.when.field] ?? ''))) continue;
        out[key] = values[key] ?? '';
      }
      return out;
    }),
    v.object(entries, 'Settings must be an object.'),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const input = dataset.value as Record<string, string | undefined>;
      for (const { key, meta } of conditional) {
        const rule = (meta.when ?? meta.requiredWhen)!;
        const applies = rule.is.includes(input[rule.field] ?? '');
        if (applies && !input[key]) {
          addIssue({
            message: meta.kind === 'key' ? KEY_FIELD_MESSAGE : CONNECTION_FIELD_MESSAGE,
            path: [{ type: 'object', origin: 'value', input, key, value: input[key] }],
          });
        }
      }
    }),
    // values of fields that do not apply are dropped, so a stale password never lingers
    v.transform((value) => {
      const out: SettingsValues = {};
      for (const [key, schema] of Object.entries(entries)) {
        const meta = fieldMeta(schema);
        const val = (value as Record<string, string | undefined>)[key];
        if (val === undefined || val === '') continue;
        if (meta.when && !meta.when.is.includes((value as Record<string, string | undefined>)[meta.when.field] ?? '')) continue;
        out[key] = val;
      }
      return out;
    }),
  ) as unknown as SettingsSchema;
}

function fieldMeta(schema: FieldSchema): Omit<FieldMeta, 'key'> {
  return (v.getMetadata(schema as never) as { field: Omit<FieldMeta, 'key'> }).field;
}

/** The object schema inside a settings schema. */
function objectOf(schema: SettingsSchema): v.ObjectSchema<Record<string, FieldSchema>, undefined> {
  const s = schema as unknown as { type: string; pipe?: { type: string }[] };
  const obj = s.type === 'object' ? s : s.pipe?.find((item) => item.type === 'object');
  if (!obj || obj.type !== 'object') throw new Error('A settings schema is an object schema');
  return obj as unknown as v.ObjectSchema<Record<string, FieldSchema>, undefined>;
}

/** The form's fields, in order, read from the schema itself. */
export function formFields(schema: SettingsSchema): FieldMeta[] {
  return Object.entries(objectOf(schema).entries).map(([key, entry]) => ({ key, ...fieldMeta(entry) }));
}

const perObject = new WeakMap<SettingsSchema, Map<string, SettingsSchema | undefined>>();

/**
 * A formula's additional settings for one object of its end: the fields that apply to that object
 * (see FieldMeta.objects), or undefined when none does. The same schema comes back for the same
 * object, so forms built from it keep their identity.
 */
export function settingsForObject(schema: SettingsSchema, object: string): SettingsSchema | undefined {
  const entries = objectOf(schema).entries;
  if (!Object.values(entries).some((e) => fieldMeta(e).objects)) return schema;
  let byObject = perObject.get(schema);
  if (!byObject) perObject.set(schema, (byObject = new Map()));
  if (!byObject.has(object)) {
    const kept = Object.entries(entries).filter(([, e]) => fieldMeta(e).objects?.includes(object) ?? true);
    byObject.set(object, kept.length ? settingsSchema(Object.fromEntries(kept)) : undefined);
  }
  return byObject.get(object);
}

/** Names of the fields stored encrypted. */
export function secretKeys(schema: SettingsSchema): string[] {
  return formFields(schema).filter((f) => f.secret).map((f) => f.key);
}

/** Names of the fields that say where Tributary connects. */
export function endpointKeys(schema: SettingsSchema): string[] {
  return formFields(schema).filter((f) => f.endpoint).map((f) => f.key);
}

/** Whether new settings lead somewhere other than the stored ones (any endpoint field differs). */
export function endpointChanged(schema: SettingsSchema, stored: Record<string, string | undefined>, next: Record<string, string | undefined>): boolean {
  return endpointKeys(schema).some((key) => (stored[key] ?? '').trim() !== (next[key] ?? '').trim());
}

/** Whether a field applies with these values (its `when` condition holds, or it has none). */
export function fieldApplies(field: FieldMeta, values: Record<string, string | undefined>): boolean {
  return !field.when || field.when.is.includes(values[field.when.field] ?? '');
}

/** Default values for a new connection's form. */
export function defaultValues(schema: SettingsSchema): SettingsValues {
  return Object.fromEntries(formFields(schema).map((f) => [f.key, f.defaultValue ?? '']));
}

/** A stand-in for a saved secret while validating an edit that keeps it. */
export const KEPT_SECRET = '\u2022kept\u2022';

export interface FieldErrors { [field: string]: string }

export type SettingsResult =
  | { success: true; values: SettingsValues }
  | { success: false; errors: FieldErrors };

/**
 * Checks settings against a system's schema. Secrets already saved may be left empty: they are
 * kept (the server substitutes the stored value; the browser only needs to know one exists).
 */
export function validateSettings(schema: SettingsSchema, input: Record<string, unknown>, savedSecrets: readonly string[] = []): SettingsResult {
  const values: Record<string, unknown> = { ...input };
  const kept = savedSecrets.filter((key) => values[key] === undefined || values[key] === '');
  for (const key of kept) values[key] = KEPT_SECRET;
  const result = v.safeParse(schema, values);
  if (result.success) return { success: true, values: result.output };
  // a kept secret is the saved value, already checked when it was saved
  const errors = issuesByField(result.issues);
  for (const key of kept) delete errors[key];
  if (Object.keys(errors).length === 0) {
    const rest = Object.fromEntries(Object.entries(values).filter(([k, x]) => typeof x === 'string' && x !== '')) as SettingsValues;
    return { success: true, values: rest };
  }
  return { success: false, errors };
}

/** The first message for each field (or `_` for the whole object). */
export function issuesByField(issues: readonly v.BaseIssue<unknown>[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path?.map((p) => String(p.key)).join('.') || '_';
    errors[key] ??= issue.message;
  }
  return errors;
}

/** The display name every connection has. */
export const displayNameSchema = v.pipe(
  v.string(CONNECTION_FIELD_MESSAGE),
  v.trim(),
  v.minLength(1, CONNECTION_FIELD_MESSAGE),
  v.maxLength(CONNECTION_FIELD_MAX, CONNECTION_FIELD_MESSAGE),
  v.regex(/^[^\u0000-\u001f\u007f<>]*$/, INVALID_CHARACTERS_MESSAGE),
);
