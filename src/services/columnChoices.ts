/** Remembered column choices of tables, in the browser's localStorage; a broken or full storage forgets quietly. */
const PREFIX = 'tributary.columns.';

export const columnChoices = {
  read(key: string): string[] | null {
    try {
      const saved: unknown = JSON.parse(globalThis.localStorage?.getItem(PREFIX + key) ?? 'null');
      return Array.isArray(saved) && saved.every((c) => typeof c === 'string') ? saved : null;
    } catch {
      return null;
    }
  },
  save(key: string, columns: readonly string[]): void {
    try {
      globalThis.localStorage?.setItem(PREFIX + key, JSON.stringify(columns));
    } catch {
      // private browsing or a full storage: the choice lasts this visit only
    }
  },
};
export type ColumnChoices = typeof columnChoices;
