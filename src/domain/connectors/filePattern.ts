/**
 * File name patterns of folder sources (Secure FTP, flat file): `*` stands for any characters and
 * nothing else is special. The same matcher picks files for fields, samples, dry runs and runs.
 *
 * Matched without a regular expression: a pattern turned into `^.*.*.*...x$` backtracks through
 * every way of splitting a name between its stars (a pattern of twelve stars and an x held the
 * server for 13 s). Here the literal pieces between the stars are found left to right, each at
 * its first place after the one before, which is right for `*` alone and linear in practice.
 */

/** wildcards a pattern may hold, once runs of `*` count as one */
export const FILE_PATTERN_MAX_WILDCARDS = 10;

export const FILE_PATTERN_MESSAGES = {
  wildcards: `A file name pattern can have at most ${FILE_PATTERN_MAX_WILDCARDS} * wildcards.`,
} as const;

/** Whether the object names several files (a pattern) rather than one file. */
export const isFilePattern = (object: string) => object.includes('*');

/** The pattern's literal pieces: before the first `*`, between stars, after the last (runs of `*` give empty pieces). */
const piecesOf = (pattern: string) => pattern.toLowerCase().split('*');

/** The number of wildcards, a run of `*` counting once. */
export function wildcardCount(pattern: string): number {
  let count = 0;
  for (let i = 0; i < pattern.length; i++) if (pattern[i] === '*' && pattern[i - 1] !== '*') count++;
  return count;
}

/** Why the pattern cannot be used, or null. */
export function filePatternProblem(pattern: string): string | null {
  return wildcardCount(pattern) > FILE_PATTERN_MAX_WILDCARDS ? FILE_PATTERN_MESSAGES.wildcards : null;
}

/**
 * Whether `name` is the file `pattern` names: the same name exactly, or, for a pattern, a name
 * it matches ignoring case.
 */
export function matchesFilePattern(pattern: string, name: string): boolean {
  if (!isFilePattern(pattern)) return pattern === name;
  const pieces = piecesOf(pattern);
  const text = name.toLowerCase();
  const first = pieces[0]!;
  const last = pieces.at(-1)!;
  // the first piece starts the name, the last ends it, and the two may not overlap
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    if (!piece) continue;
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
