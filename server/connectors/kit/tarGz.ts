/**
 * The files of a gzipped tar archive, as vendors hand over the answers of a bulk job (Mailchimp's
 * batch operations: a .tar.gz of JSON files). POSIX ustar and the GNU and pax variants' regular
 * files are read; directories, links and extended headers are skipped. Bounded: the archive may
 * unpack to at most `maxBytes`, so a small download cannot grow without end in memory.
 */
import { gunzipSync } from 'node:zlib';
import { processingError } from '../connector.ts';

const BLOCK = 512;

export function tarGzFiles(archive: Buffer, opts: { name: string; maxBytes: number }): { path: string; content: Buffer }[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive, { maxOutputLength: opts.maxBytes });
  } catch (err) {
    const tooLarge = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|buffer/i.test(String(err));
    throw processingError(tooLarge
      ? `${opts.name}'s results unpack to more than ${Math.round(opts.maxBytes / 1024 / 1024)} MB; send fewer records at once.`
      : `${opts.name}'s results could not be unpacked (not a gzip archive).`);
  }
  const files: { path: string; content: Buffer }[] = [];
  for (let at = 0; at + BLOCK <= tar.length;) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, to: number) => header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 136).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw processingError(`${opts.name}'s results are not a tar archive.`);
    const type = field(156, 157) || '0';
    const prefix = field(257, 263).startsWith('ustar') ? field(345, 500) : '';
    const path = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const start = at + BLOCK;
    if (start + size > tar.length) throw processingError(`${opts.name}'s results end inside a file (a cut archive).`);
    if (type === '0' || type === '7') files.push({ path, content: tar.subarray(start, start + size) });
    at = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}
