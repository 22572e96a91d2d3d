/**
 * Every text value the API accepts has a length limit (DESIGN.md section 6). Rather than a
 * `maxLength` on each field by hand, `endpoint()` (contract.ts) passes each request body and query
 * schema through `capText`, which gives every string in it, at any depth (object entries, list
 * items, record keys and values, union options), TEXT_MAX_LENGTH characters unless the field
 * declares a longer limit of its own (an SSH key, a flag constraint's list).
 *
 * The cap is checked before the field's own schema: a too-long value is refused before any trim,
 * regular expression or check of the field sees it, so no later step can take long.
 * A file upload is not JSON text and keeps its own limits.
 */
import * as v from 'valibot';

export const TEXT_MAX_LENGTH = 1000;

export const textTooLong = (max: number) => `A text value can be at most ${max.toLocaleString('en-US')} characters.`;

type AnySchema = v.GenericSchema & Record<string, unknown>;
type Item = { kind: string; type: string; requirement?: unknown } & Record<string, unknown>;

/** The largest `maxLength` a string pipe declares itself, if any. */
const ownMax = (pipe: readonly Item[]) => pipe
  .filter((a) => a.kind === 'validation' && a.type === 'max_length' && typeof a.requirement === 'number')
  .reduce<number | undefined>((max, a) => Math.max(max ?? 0, a.requirement as number), undefined);

/** A copy of a valibot schema with some members replaced; its methods read them through `this`. */
function copyWith(s: AnySchema, members: Record<string, unknown>): AnySchema {
  const copy = { ...s, ...members } as Record<string, unknown>;
  copy['~standard'] = {
    ...(s['~standard'] as object),
    validate: (value: unknown) => (copy as unknown as { '~run': (d: { value: unknown }, c: unknown) => unknown })['~run']({ value }, v.getGlobalConfig()),
  };
  return copy as AnySchema;
}

/**
 * The string schema `s` behind a length check: a longer string is refused with the cap's issue
 * (as a string with a wrong length, so a union of it reports that, not a wrong type) and `s`
 * never runs. The cap shows in the pipe, so OpenAPI says it.
 */
function capped(s: AnySchema, max: number): AnySchema {
  const message = textTooLong(max);
  const action = v.maxLength(max, message);
  const wrapper = copyWith(s, {
    pipe: [...((s.pipe as Item[] | undefined) ?? [s]).slice(0, 1), action, ...((s.pipe as Item[] | undefined) ?? []).slice(1)],
    textCap: max,
    '~run'(dataset: { value: unknown; typed?: boolean; issues?: unknown[] }, config: v.Config<v.BaseIssue<unknown>>) {
      const value = dataset.value;
      if (typeof value === 'string' && value.length > max) {
        dataset.typed = true;
        dataset.issues = [{
          kind: 'validation', type: 'max_length', input: value, expected: `<=${max}`, received: `${value.length}`, message,
          requirement: max, path: undefined, issues: undefined, lang: config.lang, abortEarly: config.abortEarly, abortPipeEarly: config.abortPipeEarly,
        }];
        return dataset;
      }
      return (s['~run'] as (d: unknown, c: unknown) => unknown)(dataset, config);
    },
  });
  return wrapper;
}

const done = new WeakMap<object, AnySchema>();

/** The schema with every string in it capped (see above); schemas without text come back as they are. */
export function capText<S extends v.GenericSchema>(schema: S): S {
  return cap(schema as unknown as AnySchema) as unknown as S;
}

function cap(s: AnySchema): AnySchema {
  const known = done.get(s);
  if (known) return known;
  const out = capOnce(s);
  done.set(s, out);
  return out;
}

function capOnce(s: AnySchema): AnySchema {
  const pipe = s.pipe as Item[] | undefined;
  if (pipe) {
    const [root, ...rest] = pipe as [AnySchema, ...Item[]];
    const items = rest.map((i) => (i.kind === 'schema' ? cap(i as unknown as AnySchema) : i));
    const make = (s.async ? v.pipeAsync : v.pipe) as unknown as (...items: unknown[]) => AnySchema;
    if (root.type === 'string') return capped(make(root, ...items), Math.max(ownMax(pipe) ?? 0, TEXT_MAX_LENGTH));
    return make(cap(root), ...items);
  }
  switch (s.type) {
    case 'string': return capped(s, TEXT_MAX_LENGTH);
    case 'object': case 'loose_object': case 'strict_object': case 'object_with_rest':
      return copyWith(s, {
        entries: Object.fromEntries(Object.entries(s.entries as Record<string, AnySchema>).map(([k, e]) => [k, cap(e)])),
        ...(s.rest ? { rest: cap(s.rest as AnySchema) } : {}),
      });
    case 'array': return copyWith(s, { item: cap(s.item as AnySchema) });
    case 'tuple': case 'loose_tuple': case 'strict_tuple': case 'tuple_with_rest':
      return copyWith(s, { items: (s.items as AnySchema[]).map(cap), ...(s.rest ? { rest: cap(s.rest as AnySchema) } : {}) });
    case 'record': return copyWith(s, { key: cap(s.key as AnySchema), value: cap(s.value as AnySchema) });
    case 'union': case 'variant': case 'intersect': return copyWith(s, { options: (s.options as AnySchema[]).map(cap) });
    case 'optional': case 'exact_optional': case 'nullable': case 'nullish': case 'undefinedable':
    case 'non_nullable': case 'non_nullish': case 'non_optional':
      return copyWith(s, { wrapped: cap(s.wrapped as AnySchema) });
    case 'lazy': {
      const getter = s.getter as (input: unknown) => AnySchema;
      return copyWith(s, { getter: (input: unknown) => cap(getter(input)) });
    }
    default: return s;
  }
}

/**
 * Where a schema would take text of any length: a path for each string without a cap, and each
 * `unknown`, `any` or `custom` whose value is not checked again by a later schema of its pipe.
 * Empty for every capped request schema (tests/unit/textCap.test.ts walks every endpoint).
 */
export function uncappedText(schema: v.GenericSchema, at = '(body)'): string[] {
  const s = schema as unknown as AnySchema;
  if (typeof s.textCap === 'number') return [];
  const pipe = s.pipe as Item[] | undefined;
  if (pipe) {
    const schemas = pipe.filter((i) => i.kind === 'schema') as unknown as AnySchema[];
    const root = schemas[0]!;
    if (root.type === 'string') return [`${at}: text without a limit checked first`];
    // a later schema of the pipe checks what an open root let through
    const last = schemas.at(-1)!;
    return schemas.length > 1 && !['unknown', 'any', 'custom'].includes(String(last.type)) ? uncappedText(last as never, at)
      : schemas.flatMap((x) => uncappedText(x as never, at));
  }
  switch (s.type) {
    case 'string': return [`${at}: text without a limit`];
    case 'unknown': case 'any': case 'custom': return [`${at}: ${String(s.type)}`];
    case 'object': case 'loose_object': case 'strict_object': case 'object_with_rest':
      return [
        ...Object.entries(s.entries as Record<string, AnySchema>).flatMap(([k, e]) => uncappedText(e as never, `${at}.${k}`)),
        ...(s.rest ? uncappedText(s.rest as never, `${at}.*`) : []),
      ];
    case 'array': return uncappedText(s.item as never, `${at}[]`);
    case 'tuple': case 'loose_tuple': case 'strict_tuple': case 'tuple_with_rest':
      return (s.items as AnySchema[]).flatMap((x, i) => uncappedText(x as never, `${at}[${i}]`));
    case 'record': return [...uncappedText(s.key as never, `${at} key`), ...uncappedText(s.value as never, `${at}.*`)];
    case 'union': case 'variant': case 'intersect': return (s.options as AnySchema[]).flatMap((x) => uncappedText(x as never, at));
    case 'optional': case 'exact_optional': case 'nullable': case 'nullish': case 'undefinedable':
    case 'non_nullable': case 'non_nullish': case 'non_optional':
      return uncappedText(s.wrapped as never, at);
    default: return [];
  }
}
