/**
 * Reading a CSV file on from a row (server/connectors/fileSources/table.ts, tableRows `from`): a
 * run continued in a later slice reads the rest of an uploaded file from where the last slice
 * stopped, not from line 1. For every row of files in each encoding and line-end style, the read
 * started after it gives exactly the rows a whole read gives after it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../../server/connectors/connector.ts';
import { fileUploadConnector } from '../../server/connectors/fileSources/fileUpload.ts';
import { tableRows, type ReadBytes, type RowEnd, type TableRow } from '../../server/connectors/fileSources/table.ts';

/** a file's bytes as the file store hands them: from a start to an end (inclusive), in small chunks */
const bytesOf = (file: Uint8Array, chunk = 7): ReadBytes & { reads: { start: number; end?: number }[] } => {
  const reads: { start: number; end?: number }[] = [];
  const read = (range?: { start: number; end?: number }) => {
    const start = range?.start ?? 0;
    const end = Math.min(file.length, (range?.end ?? file.length - 1) + 1);
    reads.push({ start, ...(range?.end !== undefined ? { end: range.end } : {}) });
    return (async function* () { for (let i = start; i < end; i += chunk) yield file.subarray(i, Math.min(end, i + chunk)); })();
  };
  return Object.assign(read, { reads });
};

async function readAll(read: ReadBytes, from?: RowEnd): Promise<{ headers: string[]; rows: TableRow[] }> {
  const rows: TableRow[] = [];
  let headers: string[] = [];
  for await (const chunk of tableRows(read, 'people.csv', from ? { from } : {})) { headers = chunk.headers; rows.push(...chunk.rows); }
  return { headers, rows };
}

const utf16 = (text: string, bom = true) => {
  const body = Buffer.from(text, 'utf16le');
  return bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), body]) : body;
};

const TEXT = 'Name,Note,City\r\nZoë,"two\r\nlines, ""quoted""",Zürich\r\n\r\nJosé,,São Paulo\r\n"Ann ""A""",plain,Oslo\r\n最後,末尾,東京';
const FILES: [string, Uint8Array][] = [
  ['UTF-8 with CRLF, a quoted line break, a blank line and no line end at the last row', Buffer.from(TEXT, 'utf8')],
  ['UTF-8 with a byte-order mark and LF', Buffer.from(`\ufeff${TEXT.replaceAll('\r\n', '\n')}\n`, 'utf8')],
  ['UTF-8 with CR line ends', Buffer.from(TEXT.replaceAll('\r\n', '\r'), 'utf8')],
  ['Windows-1252', Buffer.from('Name;City\r\nRen\xe9;Z\xfcrich\r\nJos\xe9;S\xe3o Paulo\r\nM\xfcller;K\xf6ln\r\n', 'latin1')],
  ['UTF-16 with a byte-order mark', utf16('Name\tCity\r\nZoë\tZürich\r\nJosé\tSão Paulo\r\n最後\t東京\r\n')],
];

describe('a CSV read on from a row', () => {
  it.each(FILES)('%s: after each row, the rest of the file', async (_name, file) => {
    const whole = await readAll(bytesOf(file));
    expect(whole.rows.length).toBeGreaterThan(2);
    for (const [i, row] of whole.rows.entries()) {
      expect(row.end, `row ${row.line} says where to read on`).toBeDefined();
      const read = bytesOf(file);
      const rest = await readAll(read, row.end);
      if (rest.rows.length) expect(rest.headers).toEqual(whole.headers);
      expect(rest.rows.map(({ line, values }) => ({ line, values }))).toEqual(whole.rows.slice(i + 1).map(({ line, values }) => ({ line, values })));
      // the head again for the encoding, delimiter and header row; then only the bytes after the row
      expect(read.reads).toEqual([{ start: 0, end: 64 * 1024 - 1 }, { start: row.end!.byte }]);
    }
  });

  it('never reads the rows before the mark, even when they would not parse', async () => {
    const good = Buffer.from('Name,City\nAnn,Oslo\nBen,Rome\nCid,Lima\n', 'utf8');
    const { rows } = await readAll(bytesOf(good));
    const mark = rows[1]!.end!;
    // the same file with the second row's bytes broken (an open quote): a read from line 1 would refuse it
    const broken = Buffer.from(good);
    broken.write('"', good.indexOf('Ben'));
    expect(broken.length).toBe(good.length);
    await expect(readAll(bytesOf(broken))).rejects.toThrow(/never closed/);
    const rest = await readAll(bytesOf(broken), mark);
    expect(rest.rows.map((r) => r.values)).toEqual([['Cid', 'Lima']]);
  });

  it('gives no place to read on from once bytes did not decode (a byte not valid in the file\'s encoding)', async () => {
    // valid UTF-8 in its first 64KB, so read as UTF-8; an invalid byte after that
    const head = `Name,City\n${'Ann,Oslo\n'.repeat(8000)}`;
    const file = Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from([0x42, 0xff, 0x2c, 0x52, 0x0a]), Buffer.from('Cid,Lima\n', 'utf8')]);
    const { rows } = await readAll(bytesOf(file, 4096));
    expect(rows.at(0)!.end).toBeDefined();
    expect(rows.at(-1)!.values).toEqual(['Cid', 'Lima']);
    expect(rows.at(-1)!.end).toBeUndefined();
  });
});

describe('the file upload connector, pulled on from its mark', () => {
  it('reads an upload on from the byte its last batch ended at', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tributary-upload-'));
    try {
      const id = '0b6c2f8e-6a36-4f4e-9d7e-1c1f1e1a00aa';
      const fileKey = `tenant/${id}.csv`;
      const csv = 'Name,City\nAnn,Oslo\nBen,Rome\nCid,Lima\nDee,Kiev\n';
      await fs.mkdir(path.join(dataDir, 'files', 'tenant'), { recursive: true });
      await fs.writeFile(path.join(dataDir, 'files', fileKey), csv);
      const row = { id, fileKey, fileName: 'people.csv', headers: ['Name', 'City'] };
      const ctx = { tenant: { uploads: { get: async () => row } }, settings: {}, dataDir } as unknown as ConnectorContext;
      const pullAll = async (since: string | null) => {
        const out: { ids: string[]; watermark: string | null }[] = [];
        for await (const b of fileUploadConnector.pull(ctx, id, since, { batchSize: 2 })) out.push({ ids: b.records.map((r) => r.id), watermark: b.watermark });
        return out;
      };
      const [first] = await pullAll(null);
      expect(first!.ids).toEqual([`${id}#2`, `${id}#3`]);
      // the rows before the mark broken in place: a read from line 1 would refuse the file
      await fs.writeFile(path.join(dataDir, 'files', fileKey), csv.replace('Ann', '"An'));
      const rest = await pullAll(first!.watermark);
      expect(rest.flatMap((b) => b.ids)).toEqual([`${id}#4`, `${id}#5`]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
