/** Request bodies and queries are checked with the same valibot schemas the browser uses; failures never echo input. */
import { vValidator } from '@hono/valibot-validator';
import type { GenericSchema } from 'valibot';
import { textProblemIn } from '../../src/domain/text.ts';
import { problemResponse } from './problem.ts';

/** Each jsonBody middleware's schema, so a route's body contract can be read from the app itself. */
const bodySchemas = new WeakMap<object, GenericSchema>();

/**
 * The schema of a jsonBody middleware (or of a handler Hono wrapped around one), else undefined.
 * The fuzz suite walks every route's body schema through this: a new route joins it by being registered.
 */
export function bodySchemaOf(handler: unknown): GenericSchema | undefined {
  if (typeof handler !== 'function') return undefined;
  // Hono keeps the original handler of a sub-app's route under this key when it wraps it
  return bodySchemas.get(handler) ?? bodySchemaOf((handler as { __COMPOSED_HANDLER?: unknown }).__COMPOSED_HANDLER);
}

/** A JSON body checked against its schema: 415 for another media type, 400 naming what is wrong. */
export const jsonBody = <S extends GenericSchema>(schema: S) => {
  const middleware = vValidator('json', schema, (result, c) => {
    // the media type Hono's validator parses as JSON, and only that: any other body would be checked as {}
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
    if (!/^application\/([\w.-]+\+)?json$/i.test(mediaType)) return problemResponse('unsupported-media-type');
    return refusal(result);
  });
  bodySchemas.set(middleware, schema);
  return middleware;
};

/** A query checked against its endpoint's schema (src/domain/api/contract.ts QuerySchema): 400 naming what is wrong. */
export const queryParams = <S extends GenericSchema>(schema: S) => vValidator('query', schema, (result) => refusal(result));

/** The 400 of a failed check, or undefined to go on. */
function refusal(result: { success: boolean; issues?: readonly { message: string }[]; output: unknown }): Response | undefined {
  if (!result.success) {
    const messages = (result.issues ?? []).map((i) => withoutInput(i.message));
    return problemResponse('bad-request', [...new Set(messages)].join(' '), {}, 'validation-failed');
  }
  // text PostgreSQL cannot store as sent (NUL, half a surrogate pair): refused here for every request, not as a 500 later
  const problem = textProblemIn(result.output);
  if (problem) return problemResponse('bad-request', problem, {}, 'validation-failed');
  return undefined;
}

/**
 * valibot's default messages end by quoting the input ("Invalid length: Expected <=200 but
 * received 201", "Invalid type: Received null"): what was expected is kept, the input never echoed.
 */
export function withoutInput(message: string): string {
  const at = message.search(/\breceived\b/i);
  if (at < 0) return message;
  let kept = message.slice(0, at).trimEnd();
  if (kept.endsWith('(')) kept = kept.slice(0, -1).trimEnd();
  if (/\bbut$/i.test(kept)) kept = kept.slice(0, -3).trimEnd();
  if (kept.endsWith(',') || kept.endsWith(':')) kept = kept.slice(0, -1).trimEnd();
  return kept || 'A value is not valid.';
}
