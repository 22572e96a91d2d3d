/** RFC 9457 problem+json responses. `title` is the browser's error-catalogue key (src/domain/errors.ts). */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { PROBLEM_TITLES, type Problem, type ProblemTitle } from '../../src/domain/errors.ts';

export class ProblemError extends Error {
  constructor(readonly status: number, readonly title: ProblemTitle, readonly detail?: string, readonly code?: string) {
    super(detail ?? PROBLEM_TITLES[title]);
  }
}

export function problemBody(status: number, title: ProblemTitle, detail?: string, code?: string): Problem {
  return { type: `about:blank#${title}`, title, status, detail: detail ?? PROBLEM_TITLES[title], code: code ?? title };
}

export function problemResponse(status: number, title: ProblemTitle, detail?: string, code?: string): Response {
  return new Response(JSON.stringify(problemBody(status, title, detail, code)), {
    status,
    headers: { 'content-type': 'application/problem+json; charset=utf-8' },
  });
}

export const fail = (status: number, title: ProblemTitle, detail?: string, code?: string): never => {
  throw new ProblemError(status, title, detail, code);
};

/** Every error becomes a problem; a stack trace or raw input never reaches the client. */
export function toProblem(err: unknown, c: Context): Response {
  if (err instanceof ProblemError) return problemResponse(err.status, err.title, err.detail, err.code);
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 413) return problemResponse(413, 'payload-too-large');
    if (status === 400 && /Content-Type/i.test(err.message)) return problemResponse(415, 'unsupported-media-type');
    if (status === 400 && /JSON/i.test(err.message)) return problemResponse(400, 'bad-request', 'The request body is not valid JSON.');
    if (status === 401) return problemResponse(401, 'unauthenticated');
    if (status === 403) return problemResponse(403, 'forbidden');
    if (status === 404) return problemResponse(404, 'not-found');
    if (status < 500) return problemResponse(status, 'bad-request');
  }
  c.var.log?.error({ err }, 'unhandled error');
  return problemResponse(500, 'server-error');
}

/**
 * The one error handling of an app: every error becomes a problem (toProblem). Hono hands only
 * Error instances to onError, so a boundary first turns anything else thrown into an Error.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function installErrorHandling(app: Hono<any>): void {
  app.use('*', async (_c, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof Error) throw err;
      throw new Error('A value that is not an Error was thrown', { cause: err });
    }
  });
  app.onError((err, c) => toProblem(err, c));
}
