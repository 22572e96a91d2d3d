/**
 * File name patterns of folder sources (src/domain/connectors/filePattern.ts): what a pattern
 * matches, and that no pattern holds the process, whatever its stars, through the folder source
 * that fields, samples, dry runs and runs all read files with.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  FILE_PATTERN_MAX_WILDCARDS, FILE_PATTERN_MESSAGES, filePatternProblem, matchesFilePattern, wildcardCount,
} from '../../src/domain/connectors/filePattern.ts';
import { collectedFiles, folderFields, pullFolder, type Folder } from '../../server/connectors/fileSources/folderSource.ts';

/** A folder of CSV files held in memory, each with the headers Name and Email. */
function folderOf(names: string[]): Folder {
  const files = names.map((name, i) => ({ name, size: 20, modifiedMs: 1_700_000_000_000 + i * 1000 }));
  return {
    list: async () => files,
    read: async () => Buffer.from('Name,Email\r\nAda,ada@example.org\r\n'),
  };
}

/** What a pattern should match, said plainly: the pattern as a regular expression (fine for short, tame inputs). */
const byRegex = (pattern: string, name: string) => !pattern.includes('*') ? pattern === name
  : new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'is').test(name);

describe('what a pattern matches', () => {
  it.each([
    ['donations-*.csv', 'donations-2026-11.csv', true],
    ['donations-*.csv', 'DONATIONS-2026-11.CSV', true],
    ['donations-*.csv', 'gifts-2026-11.csv', false],
    ['donations-*.csv', 'donations-.csv', true],
    ['*', 'anything.xlsx', true],
    ['*.csv', 'a.csv.xlsx', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['*ab*ab*', 'xabyab', true],
    ['*ab*ab*', 'xaby', false],
    ['**a***b**', 'xaxbx', true],
    ['report.csv', 'Report.csv', false],
    ['report.csv', 'report.csv', true],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(matchesFilePattern(pattern, name)).toBe(expected);
  });

  it('agrees with the pattern read as a regular expression, on any pattern and name', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', 'A', '-'), maxLength: 12 });
    fc.assert(fc.property(text, fc.string({ unit: fc.constantFrom('a', 'b', '.', 'A', 'B', '-'), maxLength: 14 }), (pattern, name) => {
      expect(matchesFilePattern(pattern, name)).toBe(byRegex(pattern, name));
    }), { numRuns: 3000 });
  });

  it('counts a run of stars as one wildcard, and refuses more than the cap with a message', () => {
    expect(wildcardCount('a***b*c')).toBe(2);
    expect(filePatternProblem(`${'*'.repeat(50)}x`)).toBeNull();
    expect(filePatternProblem('*a'.repeat(FILE_PATTERN_MAX_WILDCARDS))).toBeNull();
    expect(filePatternProblem('*a'.repeat(FILE_PATTERN_MAX_WILDCARDS + 1))).toBe(FILE_PATTERN_MESSAGES.wildcards);
  });
});

describe('no pattern holds the process', () => {
  const names = Array.from({ length: 50 }, (_, i) => `weekend-signups-2026-11-${String(i).padStart(2, '0')}-export-from-the-form.csv`);
  const folder = folderOf(names);
  const timed = async <T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> => {
    const started = performance.now();
    const result = await work().then((value) => ({ value }), (error: unknown) => ({ error }));
    return { ...result, ms: performance.now() - started };
  };

  it('answers fields for twelve, twenty and a thousand stars followed by x at once: no file matches', async () => {
    for (const stars of [12, 20, 1000]) {
      const { error, ms } = await timed(() => folderFields(folder, `${'*'.repeat(stars)}x`));
      expect(ms, `${stars} stars`).toBeLessThan(100);
      expect((error as Error).message).toBe(`No file matches ${'*'.repeat(stars)}x.`);
    }
  }, 5_000);

  it('matches many alternating wildcards quickly, and refuses a pattern past the cap before reading anything', async () => {
    const { value, ms } = await timed(() => folderFields(folder, '*e*e*-*-*-*-*-*.csv'));
    expect(ms).toBeLessThan(100);
    expect(value).toEqual([{ name: 'Name', label: 'Name', type: 'string' }, { name: 'Email', label: 'Email', type: 'string' }]);
    const hostile = `${'*a'.repeat(5000)}x`;
    const refused = await timed(() => folderFields(folder, hostile));
    expect(refused.ms).toBeLessThan(100);
    expect((refused.error as Error).message).toBe(FILE_PATTERN_MESSAGES.wildcards);
    await expect(collectedFiles(folder, hostile, { t: 0, n: '' })).rejects.toThrow(FILE_PATTERN_MESSAGES.wildcards);
  }, 5_000);

  it('reads, for a run, only the files a pattern matches', async () => {
    const batches = [];
    for await (const batch of pullFolder(folder, '*-0?-*'.replace('?', '1'), null)) batches.push(batch);
    expect(batches.flatMap((b) => b.records.map((r) => r.id.split('#')[0]))).toEqual(names.filter((n) => n.includes('-01-')));
  });
});
