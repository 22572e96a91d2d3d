/** RFC 9457 problem+json responses. `title` is the browser's error-catalogue key (src/domain/errors.ts). */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DomainError, PROBLEM_TITLES, type Problem, type ProblemTitle } from '../../src/domain/errors.ts';
import { FORMULA_PART_NAMES, PART_OPERATIONS, partProblemTitle, type PartProblemTitle } from '../../src/domain/formula/parts.ts';

/**
 * The one error map: the HTTP status of every problem title, and of the finer codes that differ
 * from their title's. A title added to the catalogue without a status here does not compile.
 */
export const PROBLEM_STATUS: Record<Exclude<ProblemTitle, PartProblemTitle>, number> & Record<PartProblemTitle, number> = {
  'unauthenticated': 401,
  'forbidden': 403,
  'not-found': 404,
  'bad-request': 400,
  'unknown-subdomain': 404,
  'no-tenant-access': 403,
  'no-tenants': 404,
  'no-roles': 403,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'method-not-allowed': 405,
  'server-error': 500,
  'too-many-requests': 429,
  'user-not-created': 409,
  'user-not-updated': 409,
  'user-not-deleted': 409,
  'password-not-reset': 409,
  'file-type-not-accepted': 415,
  'file-too-large': 413,
  'file-name-too-long': 422,
  'file-empty': 422,
  'file-wrong-structure': 422,
  'virus-found': 422,
  'file-too-large-to-scan': 413,
  'virus-scanner-unavailable': 503,
  'upload-already-taken': 409,
  'connection-failed': 422,
  'connection-error': 502,
  'datasource-in-use': 409,
  'datasource-built-in': 409,
  'datasource-name-taken': 409,
  'invalid-report-id': 422,
  'report-date-filter': 422,
  'report-missing-access': 422,
  'import-rows-refused': 422,
  'import-columns-conflict': 422,
  'oauth-not-connected': 422,
  'formula-wipe-unconfirmed': 409,
  'formula-incomplete': 422,
  'formula-busy': 409,
  'formula-archived': 409,
  'formula-not-archived': 409,
  'formula-draft-not-archived': 409,
  'tab-limit': 409,
  'tab-order-stale': 409,
  'no-edit-permission': 403,
  'record-incompatible-data': 400,
  'record-not-editable': 409,
  'export-gone': 410,
  'export-not-ready': 409,
  // a part's failures are the server's: its own rules answer bad-request or not-found
  ...(Object.fromEntries(FORMULA_PART_NAMES.flatMap((p) => PART_OPERATIONS.map((op) => [partProblemTitle(p, op), 500]))) as Record<PartProblemTitle, number>),
};
const CODE_STATUS: Record<string, number> = { unknown: 500 };

export const statusOf = (title: ProblemTitle, code?: string) => (code && CODE_STATUS[code]) || PROBLEM_STATUS[title];

export function problemBody(title: ProblemTitle, detail?: string, extensions: Record<string, unknown> = {}, code?: string): Problem {
  return { ...extensions, type: `about:blank#${title}`, title, status: statusOf(title, code), detail: detail ?? PROBLEM_TITLES[title], code: code ?? title };
}

export function problemResponse(title: ProblemTitle, detail?: string, extensions?: Record<string, unknown>, code?: string): Response {
  const body = problemBody(title, detail, extensions, code);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  });
}

/** Refuses the request: throws the DomainError the error map answers. */
export const fail = (title: ProblemTitle, detail?: string, extensions?: Record<string, unknown>, code?: string): never => {
  throw new DomainError(title, detail, extensions, code);
};

/** Every error becomes a problem; a stack trace or raw input never reaches the client. */
export function toProblem(err: unknown, c: Context): Response {
  if (err instanceof DomainError) return problemResponse(err.title, err.detail, err.extensions, err.code);
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 413) return problemResponse('payload-too-large');
    if (status === 400 && /Content-Type/i.test(err.message)) return problemResponse('unsupported-media-type');
    if (status === 400 && /JSON/i.test(err.message)) return problemResponse('bad-request', 'The request body is not valid JSON.');
    if (status === 401) return problemResponse('unauthenticated');
    if (status === 403) return problemResponse('forbidden');
    if (status === 404) return problemResponse('not-found');
    if (status < 500) return problemResponse('bad-request');
  }
  c.var.log?.error({ err }, 'unhandled error');
  return problemResponse('server-error');
}

/**
 * The one error handling of an app: every error becomes a problem (toProblem). Hono hands only
 * Error instances to onError, so a boundary first turns anything else thrown into an Error.
 * `refused` hears of every refusal (a 403) before it is answered, wherever it was decided.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function installErrorHandling(app: Hono<any>, hooks: { refused?(c: Context<any>, err: DomainError): Promise<DomainError | void> } = {}): void {
  app.use('*', async (_c, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof Error) throw err;
      throw new Error('A value that is not an Error was thrown', { cause: err });
    }
  });
  app.onError(async (err, c) => {
    if (hooks.refused && err instanceof DomainError && statusOf(err.title, err.code) === 403) {
      // a refusal may be answered otherwise: too many of them are rate-limited
      const instead = await hooks.refused(c, err);
      if (instead) {
        const res = toProblem(instead, c);
        const retryAfter = instead.extensions?.retryAfter;
        if (typeof retryAfter === 'number') res.headers.set('Retry-After', String(retryAfter));
        return res;
      }
    }
    return toProblem(err, c);
  });
}
