/** Files for the upload tests, made at test time: the repository carries no EICAR file and no binaries. */
import * as XLSX from '@e965/xlsx';

/** The EICAR anti-virus test string, joined from parts so no file in the repository is one. */
export function eicar(): string {
  return ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-', 'ANTIVIRUS-TEST-FILE!$H+H*'].join('');
}

/** A valid CSV of exactly `bytes` bytes: a header and rows of 100 bytes, the last one padded. */
export function csvOfSize(bytes: number): Buffer {
  const header = 'id,name,notes\n';
  const out = Buffer.alloc(bytes, 0x78 /* x */);
  out.write(header, 0, 'latin1');
  let at = header.length;
  let i = 1;
  while (bytes - at >= 200) {
    const start = `${String(i).padStart(8, '0')},row ${i},`;
    out.write(start, at, 'latin1');
    out[at + 99] = 0x0a;
    at += 100;
    i++;
  }
  // the last row takes whatever is left (100 to 199 bytes)
  out.write(`${String(i).padStart(8, '0')},row ${i},`, at, 'latin1');
  out[bytes - 1] = 0x0a;
  return out;
}

/** A CSV text with a header and `rows` rows. */
export function csvText(rows: number, header = ['First name', 'Last name', 'Email', 'Amount']): string {
  const lines = [header.join(',')];
  for (let i = 1; i <= rows; i++) lines.push(`Ann${i},Smith${i},ann${i}@example.org,${i}.50`);
  return `${lines.join('\r\n')}\r\n`;
}

export function workbook(rows: unknown[][], bookType: 'xlsx' | 'biff8', opts: { sharedStrings?: boolean } = {}): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows, { cellDates: true }), 'Gifts');
  return XLSX.write(wb, { type: 'buffer', bookType, bookSST: opts.sharedStrings ?? false, compression: true }) as Buffer;
}

export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
