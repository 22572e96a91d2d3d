/**
 * The loose shape of an e-mail address that a record's e-mail field and the Sandbox CRM accept:
 * one @ with something before it, no white space, and a dot inside the part after the @.
 *
 * Checked by position rather than with /^[^\s@]+@[^\s@]+\.[^\s@]+$/, which backtracks over every
 * dot of a long `a@a.a.a...` (78 KB took 4.8 s): this reads the text a fixed number of times.
 */
export function looksLikeEmail(text: string): boolean {
  const at = text.indexOf('@');
  if (at < 1 || text.indexOf('@', at + 1) >= 0 || /\s/.test(text)) return false;
  // a dot with at least one character either side of it, after the @
  const dot = text.indexOf('.', at + 2);
  return dot >= 0 && dot < text.length - 1;
}
