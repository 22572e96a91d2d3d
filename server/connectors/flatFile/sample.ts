/**
 * What is kept of a file (SPEC.md section 5): a header row with unique, non-empty headers, and
 * the first 20 rows as the sample mapping uses. Rows after the sample are only counted and
 * checked, never kept, so memory does not grow with the file.
 */
import { SAMPLE_ROWS } from '../../../src/domain/upload.ts';
import { FlatFileError } from './errors.ts';

/** More columns than this is not a table anyone maps by hand. */
export const MAX_COLUMNS = 1000;

const isBlank = (row: readonly string[]) => row.every((v) => v.trim() === '');

/** Checks the header row: trailing empty cells dropped, every other header non-empty and unique (ignoring case). */
export function checkHeaders(raw: readonly string[]): string[] {
  const headers = raw.map((h) => h.trim());
  while (headers.length > 0 && headers.at(-1) === '') headers.pop();
  if (headers.length > MAX_COLUMNS) throw new FlatFileError('wrong-structure', `The header row has more than ${MAX_COLUMNS} columns.`);
  const missing = headers.findIndex((h) => h === '');
  if (missing >= 0) throw new FlatFileError('wrong-structure', `Column ${missing + 1} has no header.`);
  const seen = new Map<string, number>();
  for (const [i, h] of headers.entries()) {
    const key = h.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      throw new FlatFileError('wrong-structure', `Columns ${first + 1} and ${i + 1} have the same header.`);
    }
    seen.set(key, i);
  }
  return headers;
}

export class SampleCollector {
  headers: string[] | null = null;
  readonly sampleRows: string[][] = [];
  rowCount = 0;

  /** One record as read; `where` names it in messages ("Line 7", "Row 7"). */
  add(record: readonly string[], where: string): void {
    if (isBlank(record)) return;
    if (this.headers === null) {
      this.headers = checkHeaders(record);
      if (this.headers.length === 0) throw new FlatFileError('wrong-structure', 'The header row is empty.');
      return;
    }
    const width = this.headers.length;
    for (let i = record.length - 1; i >= width; i--) {
      if (record[i]!.trim() !== '') {
        throw new FlatFileError('wrong-structure', `${where} has a value in column ${i + 1}, which has no header.`);
      }
    }
    this.rowCount++;
    if (this.sampleRows.length < SAMPLE_ROWS) {
      const row = record.slice(0, width);
      while (row.length < width) row.push('');
      this.sampleRows.push(row);
    }
  }

  /** Rows after the sample that were counted elsewhere (a streamed sheet), and their widest value. */
  addCounted(rows: number, widest: { column: number; where: string } | null): void {
    if (this.headers && widest && widest.column >= this.headers.length) {
      throw new FlatFileError('wrong-structure', `${widest.where} has a value in column ${widest.column + 1}, which has no header.`);
    }
    this.rowCount += rows;
  }

  finish(): { headers: string[]; sampleRows: string[][]; rowCount: number } {
    if (this.headers === null) throw new FlatFileError('empty', 'The file has no content.');
    if (this.rowCount === 0) throw new FlatFileError('empty', 'The file has a header row but no rows of data.');
    return { headers: this.headers, sampleRows: this.sampleRows, rowCount: this.rowCount };
  }
}
