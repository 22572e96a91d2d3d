/**
 * One storage interface for uploaded, imported and exported files (DESIGN.md section 6). The
 * default keeps them in a folder under DATA_DIR (`.data/files`, dataFileStore); another backend
 * (an object store) implements the same four calls. It sits beside the file connectors, which
 * read what was uploaded.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface FileStore {
  /** Streams content into the object `key` (replacing it); answers the bytes written. */
  put(key: string, content: Readable | AsyncIterable<Uint8Array> | Uint8Array): Promise<{ size: number }>;
  /** The object's bytes as a stream, or those from `start` to `end` (inclusive); throws when there is none. */
  read(key: string, range?: { start: number; end?: number }): Readable;
  size(key: string): Promise<number | null>;
  remove(key: string): Promise<void>;
}

/** Keys are slash-separated segments of letters, digits, dot, dash and underscore; never "." or ".." */
const isKey = (key: string) => key.split('/').every((segment) => /^[\w.-]+$/.test(segment) && segment !== '.' && segment !== '..');

/** The product's files: the folder `files` under DATA_DIR. */
export const dataFileStore = (dataDir: string): FileStore => localFileStore(path.join(dataDir, 'files'));

export function localFileStore(root: string): FileStore {
  const resolve = (key: string) => {
    if (!isKey(key)) throw new Error(`invalid file key: ${key}`);
    return path.join(root, ...key.split('/'));
  };
  return {
    async put(key, content) {
      const source = content instanceof Uint8Array ? Readable.from([content]) : content;
      // A stream can fail while the folder is made, before pipeline() listens: an 'error' event
      // with no listener would end the process, so it is noted from the start and rethrown here.
      let failed: { err: unknown } | undefined;
      if (source instanceof Readable) source.on('error', (err) => { failed ??= { err }; });
      const file = resolve(key);
      await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      if (failed) throw failed.err;
      let size = 0;
      const counted = async function* (src: AsyncIterable<Uint8Array>) {
        for await (const chunk of src) { size += chunk.length; yield chunk; }
      };
      try {
        await pipeline(source, counted, fs.createWriteStream(file, { mode: 0o600 }));
      } catch (err) {
        await fsp.rm(file, { force: true });
        throw err;
      }
      return { size };
    },
    read(key, range) {
      return fs.createReadStream(resolve(key), range);
    },
    async size(key) {
      try { return (await fsp.stat(resolve(key))).size; } catch { return null; }
    },
    async remove(key) {
      await fsp.rm(resolve(key), { force: true });
    },
  };
}
