/**
 * CSV as people really produce it, read as a stream: RFC 4180 quoting (commas, quotes and line
 * breaks inside quoted fields), CRLF, LF or CR line ends, and the delimiter detected from the
 * header line (comma, semicolon, tab or pipe). Decoding (UTF-8 with or without BOM, Windows-1252,
 * UTF-16 with BOM) is tabular.ts's job; this file works on text.
 */
import { FlatFileError } from './errors.ts';

export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

/**
 * The delimiter of the first record: the candidate found most often outside quotes in it
 * (comma wins a tie, and a file with a single column).
 */
export function detectDelimiter(text: string): Delimiter {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (c === '\n' || c === '\r')) break;
    else if (!inQuotes && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best: Delimiter = ',';
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

const enum State { FieldStart, Unquoted, Quoted, QuoteInQuoted }
const QUOTE = 34, CR = 13, LF = 10;

/**
 * Where a record ended, for a reader that may start again after it: the index in the text of the
 * last `push` just past its line end (-1 for a last record ended by `end()`), the line
 * the next record starts on, and whether it ended with a CR (a LF right after it belongs to it).
 */
export interface RecordEnd { index: number; nextLine: number; cr: boolean }

/** Where a tokenizer starts in the middle of a text: on a line, after a record that ended with a CR or not. */
export interface TokenizerStart { line: number; afterCr: boolean }

/**
 * A push tokenizer: text goes in in chunks of any size (a CRLF or a doubled quote may be split
 * between two chunks), records come out through `emit`. A record longer than `maxFields`
 * fields is refused as it is read, so one absurd line cannot take the memory.
 */
export class CsvTokenizer {
  private state = State.FieldStart;
  private field = '';
  private record: string[] = [];
  private skipLf = false;
  /** the physical line the current record started on (1-based), for messages */
  private line = 1;
  private recordLine = 1;
  private readonly delim: number;

  constructor(
    delimiter: string,
    private readonly emit: (record: string[], line: number, end: RecordEnd) => void,
    private readonly maxFields = 1000,
    start?: TokenizerStart,
  ) {
    this.delim = delimiter.charCodeAt(0);
    if (start) {
      this.line = this.recordLine = start.line;
      this.skipLf = start.afterCr;
    }
  }

  push(text: string): void {
    const n = text.length;
    const delim = this.delim;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (c === LF) { i++; continue; }
      }
      switch (this.state) {
        case State.FieldStart:
          if (c === QUOTE) { this.state = State.Quoted; i++; continue; }
          if (c === delim) { this.endField(); i++; continue; }
          if (c === CR || c === LF) { this.endRecord(c, i + 1); i++; continue; }
          this.state = State.Unquoted;
          continue;
        case State.Unquoted: {
          // the run up to the next delimiter or line end; a quote here is an ordinary character
          let j = i;
          while (j < n) {
            const d = text.charCodeAt(j);
            if (d === delim || d === CR || d === LF) break;
            j++;
          }
          this.field += text.slice(i, j);
          i = j;
          if (i < n) {
            const d = text.charCodeAt(i);
            if (d === delim) this.endField(); else this.endRecord(d, i + 1);
            i++;
          }
          continue;
        }
        case State.Quoted: {
          const q = text.indexOf('"', i);
          const end = q < 0 ? n : q;
          const run = text.slice(i, end);
          this.countLines(run);
          this.field += run;
          i = end;
          if (q >= 0) { this.state = State.QuoteInQuoted; i++; }
          continue;
        }
        case State.QuoteInQuoted:
          if (c === QUOTE) { this.field += '"'; this.state = State.Quoted; i++; continue; }
          if (c === delim) { this.endField(); i++; continue; }
          if (c === CR || c === LF) { this.endRecord(c, i + 1); i++; continue; }
          // text after a closing quote ("ab"c): kept as Excel keeps it
          this.state = State.Unquoted;
          continue;
      }
    }
  }

  /** The end of the text: the last record may lack a line end; an open quote is an error. */
  end(): void {
    if (this.state === State.Quoted) {
      throw new FlatFileError('wrong-structure', `A quoted value that starts on line ${this.recordLine} is never closed.`);
    }
    if (this.state !== State.FieldStart || this.record.length > 0 || this.field !== '') this.endRecord(-1, -1);
  }

  private countLines(s: string) {
    for (let k = s.indexOf('\n'); k >= 0; k = s.indexOf('\n', k + 1)) this.line++;
  }

  private endField() {
    this.record.push(this.field);
    this.field = '';
    this.state = State.FieldStart;
    if (this.record.length > this.maxFields) {
      throw new FlatFileError('wrong-structure', `Line ${this.recordLine} has more than ${this.maxFields} columns.`);
    }
  }

  private endRecord(c: number, index: number) {
    this.endField();
    const record = this.record;
    this.record = [];
    const line = this.recordLine;
    if (c === CR) this.skipLf = true;
    if (c === CR || c === LF) this.line++;
    this.recordLine = this.line;
    this.emit(record, line, { index, nextLine: this.line, cr: c === CR });
  }
}

/** Parses a whole CSV text (tests and small inputs). */
export function parseCsvText(text: string, delimiter: string = detectDelimiter(text)): string[][] {
  const out: string[][] = [];
  const t = new CsvTokenizer(delimiter, (r) => out.push(r));
  t.push(text);
  t.end();
  return out;
}
