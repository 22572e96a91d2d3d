/** JSON logs (pino); request handlers log through a child carrying the request id and correlationId. */
import { DrizzleQueryError } from 'drizzle-orm/errors';
import pino, { type DestinationStream, type Logger } from 'pino';

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'tributary' }, redact: ['req.headers.authorization', '*.password', '*.secret'], serializers: { err: loggedError } };
  return destination ? pino(options, destination) : pino(options);
}
export type { Logger };

/** String fields of an error that name where it happened, never what was in the data. */
const PLACE_FIELDS = ['code', 'severity', 'constraint', 'table', 'column', 'schema', 'dataType', 'routine', 'syscall', 'job', 'title', 'outcome'];
const MAX_CAUSES = 5;

/**
 * What a log keeps of an error. A failed statement's parameters are the record's values, e-mails
 * and names, and PostgreSQL quotes values back in its messages (`invalid input syntax for type
 * uuid: "..."`, a duplicate key's detail, the JSON `where` it could not read): the log keeps the
 * statement, the error's kind, SQL state and place, and messages with quoted text replaced by "…".
 * Anything else an error carries is left out.
 */
export function loggedError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? quotesOut(err) : err;
  const type = err.constructor?.name || err.name;
  // drizzle's message repeats the parameters after the statement: only the statement is kept
  const message = err instanceof DrizzleQueryError ? `Failed query: ${err.query}` : quotesOut(err.message);
  const out: Record<string, unknown> = { type, message };
  const fields = err as unknown as Record<string, unknown>;
  for (const key of PLACE_FIELDS) if (typeof fields[key] === 'string' || typeof fields[key] === 'number') out[key] = fields[key];
  // the stack's first line is the message again
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  out.stack = [`${type}: ${message}`, ...frames].join('\n');
  if (err.cause !== undefined && depth < MAX_CAUSES) out.cause = loggedError(err.cause, depth + 1);
  if (err instanceof AggregateError && depth < MAX_CAUSES) out.errors = err.errors.slice(0, MAX_CAUSES).map((e) => loggedError(e, depth + 1));
  return out;
}

/**
 * Text from its first double quote on replaced by an ellipsis: the values PostgreSQL and JSON.parse
 * quote back (a quoted value may hold quotes itself, so nothing after the first is kept).
 */
function quotesOut(text: string): string {
  const at = text.indexOf('"');
  return at < 0 ? text : `${text.slice(0, at)}"…"`;
}
