/**
 * The real type of a file, by its content (magic bytes), never by its extension. The extension
 * only has to be one of the accepted ones; the content decides which parser reads the file.
 */
import type { FileKind } from '../../../src/domain/upload.ts';

/** Bytes read from the start of a file to decide its type. */
export const SNIFF_BYTES = 64 * 1024;

export type Detected =
  | { kind: 'xlsx' }          // a ZIP container; excel.ts checks it really holds a workbook
  | { kind: 'xls' }           // an OLE2 compound file; excel.ts checks it holds a BIFF workbook
  | { kind: 'csv'; encoding: TextEncoding; bomLength: number }
  | { kind: 'unsupported'; reason: string };

export type TextEncoding = 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be';

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) => sig.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const ZIP_EMPTY = [0x50, 0x4b, 0x05, 0x06];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Formats people try to upload instead of a spreadsheet, named in the refusal. */
const KNOWN_OTHER: [string, number[]][] = [
  ['a PDF document', ascii('%PDF-')],
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', ascii('GIF8')],
  ['a gzip archive', [0x1f, 0x8b]],
  ['a 7-Zip archive', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['a RAR archive', ascii('Rar!')],
  ['a program', [0x7f, 0x45, 0x4c, 0x46]],
  ['an RTF document', ascii('{\\rtf')],
];

/**
 * A Windows program: 'MZ', and at the offset its header names (bytes 60-63), 'PE' and two NULs.
 * 'MZ' alone is not enough: a CSV may well start with a column named MZ.
 */
function isWindowsProgram(b: Uint8Array): boolean {
  if (!startsWith(b, ascii('MZ')) || b.length < 64) return false;
  const pe = b[60]! | (b[61]! << 8) | (b[62]! << 16) | (b[63]! << 24);
  return pe >= 64 && pe + 4 <= b.length && startsWith(b, [0x50, 0x45, 0, 0], pe);
}

/** Markup that spreadsheet-looking exports sometimes really are (an HTML table or XML saved as .xls). */
const MARKUP = /^\s*(<\?xml|<!doctype|<html|<table|<workbook|<svg)/i;

export function detectKind(head: Uint8Array): Detected {
  if (head.length === 0) return { kind: 'csv', encoding: 'utf-8', bomLength: 0 };
  if (startsWith(head, ZIP) || startsWith(head, ZIP_EMPTY)) return { kind: 'xlsx' };
  if (startsWith(head, OLE2)) return { kind: 'xls' };
  for (const [name, sig] of KNOWN_OTHER) {
    if (startsWith(head, sig)) return { kind: 'unsupported', reason: `The file is ${name}, not a CSV or Excel file.` };
  }
  if (isWindowsProgram(head)) return { kind: 'unsupported', reason: 'The file is a program, not a CSV or Excel file.' };

  // Text. A byte-order mark names the encoding; otherwise valid UTF-8 is UTF-8 and anything else
  // is taken as Windows-1252 (what Excel's "CSV" export writes on Windows).
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return textOrNot(head, 'utf-8', 3);
  if (startsWith(head, [0xff, 0xfe])) return textOrNot(head, 'utf-16le', 2);
  if (startsWith(head, [0xfe, 0xff])) return textOrNot(head, 'utf-16be', 2);
  return textOrNot(head, isUtf8(head) ? 'utf-8' : 'windows-1252', 0);
}

function textOrNot(head: Uint8Array, encoding: TextEncoding, bomLength: number): Detected {
  const body = head.subarray(bomLength);
  const text = new TextDecoder(encoding).decode(body);
  // NUL and most other C0 controls never occur in a real CSV; a binary file has plenty
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return { kind: 'unsupported', reason: 'The file is not a text (CSV) file or an Excel workbook.' };
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) controls++;
  }
  if (controls > Math.max(2, text.length / 100)) {
    return { kind: 'unsupported', reason: 'The file is not a text (CSV) file or an Excel workbook.' };
  }
  if (MARKUP.test(text.slice(0, 512))) {
    return { kind: 'unsupported', reason: 'The file is a web page or XML document, not a CSV or Excel file.' };
  }
  return { kind: 'csv', encoding, bomLength };
}

/** Valid UTF-8, allowing a sequence cut off at the end of the sniffed bytes. */
export function isUtf8(bytes: Uint8Array): boolean {
  let end = bytes.length;
  // step back over a possibly truncated final sequence (at most 3 bytes)
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const b = bytes[end - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      if (back < need) end -= back;
    }
    break;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

export const kindLabel: Record<FileKind, string> = { csv: 'CSV', xlsx: 'Excel workbook (.xlsx)', xls: 'Excel 97-2003 workbook (.xls)' };
