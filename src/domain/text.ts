/**
 * What every text a request carries must be, whatever field it is in: well-formed Unicode
 * (JSON's `\ud800` escape can name half a surrogate pair, which PostgreSQL refuses in jsonb and
 * UTF-8 cannot encode, so it would be stored changed or fail) and without NUL (which PostgreSQL
 * cannot store in text). The server applies it to every JSON body and query (server/http/validation.ts);
 * forms may use it too.
 *
 * Names people read elsewhere (a user's full name, in e-mails, logs and headers) also hold no
 * control characters (line breaks included) nor the bidirectional overrides that make text read
 * backwards.
 */

export const TEXT_MESSAGES = {
  nul: 'Text cannot contain the NUL character.',
  surrogate: 'Text must be well-formed Unicode: it holds half of a surrogate pair.',
} as const;

/** a lone half of a surrogate pair: with the u flag, a surrogate matches only when it is not part of a pair */
const LONE_SURROGATE = /\p{Cs}/u;
/** control characters (tab, line feed, carriage return, ...) and bidirectional embeddings, overrides and isolates */
const NAME_CONTROL = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** What is wrong with one text, or null when any field may hold it. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return TEXT_MESSAGES.nul;
  if (LONE_SURROGATE.test(text)) return TEXT_MESSAGES.surrogate;
  return null;
}

/** The first problem of any text in a parsed JSON value or query, keys included; null when there is none. */
export function textProblemIn(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') return textProblem(value);
  if (depth > 64 || value === null || typeof value !== 'object') return null;
  for (const [k, inner] of Object.entries(value)) {
    const problem = textProblem(k) ?? textProblemIn(inner, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/** Whether a name people read holds a line break, another control character or a bidirectional override. */
export const holdsNameControl = (name: string) => NAME_CONTROL.test(name);
