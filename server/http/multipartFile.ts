/**
 * One file received as multipart/form-data (a part named "file") into the file store, under the
 * 15MB limit, the way the flat file service receives uploads: streamed with busboy, the body cut
 * off when it runs far past the limit, and every stream given its 'error' listener before
 * anything can emit (an 'error' without one ends the process). The caller removes the stored file.
 */
import { Readable, Transform } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'hono';
import { fileNameLength, MAX_FILE_NAME_LENGTH, MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';
import type { FileStore } from '../connectors/fileSources/fileStore.ts';
import { fail, problemResponse } from './problem.ts';

/** Multipart framing around the file (boundaries, part headers): generous, and still bounded. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** A body this far past the limit is not read to its end: the connection is closed instead. */
const DRAIN_ALLOWANCE = 1024 * 1024;

export interface StoredFile { fileName: string; size: number }

/**
 * Reads the request's file into the store under `key`: the stored file, or the refusal to answer
 * (a Response when the connection must close, otherwise a thrown problem).
 */
export async function receiveFile(
  c: Context, store: FileStore, key: string,
  opts: {
    accepts(fileName: string): boolean;
    acceptsWhat: string;
    /** checks of the request itself, once its headers pass and before its body is read */
    before?: () => Promise<void>;
    /** where an unreadable body is noted (never the client's bytes) */
    log?: { info(obj: object, msg: string): void };
  },
): Promise<StoredFile | Response> {
  const contentType = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    return fail('unsupported-media-type', 'Send the file as multipart/form-data, in a part named "file".');
  }
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD + DRAIN_ALLOWANCE) return tooLarge(true);
  if (!c.req.raw.body) return fail('bad-request', 'The request has no file.');
  await opts.before?.();
  let received: Received;
  try {
    received = await receive(c.req.raw.body, contentType, store, key, opts.accepts);
  } catch (err) {
    await store.remove(key).catch(() => undefined);
    if (err instanceof BodyTooLarge) return tooLarge(true);
    // the store's own failure is ours, not the client's: a logged 500
    if (err instanceof StoreFailed) throw err.cause instanceof Error ? err.cause : err;
    opts.log?.info({ err: err instanceof Error ? err.message : String(err) }, 'upload body could not be read');
    return fail('bad-request', 'The upload could not be read as multipart/form-data.');
  }
  switch (received.kind) {
    case 'none': return fail('bad-request', 'The request has no part named "file".');
    case 'name-too-long': return fail('file-name-too-long', `The file name has ${fileNameLength(received.fileName)} characters; it must be under 150.`);
    case 'not-accepted': return fail('file-type-not-accepted', opts.acceptsWhat);
  }
  if (received.truncated || received.size > MAX_UPLOAD_BYTES) return tooLarge(false);
  if (received.size === 0) return fail('file-empty', 'The file is empty.');
  return { fileName: received.fileName, size: received.size };
}

/** 413 with SPEC's message; when the body was not read to its end the connection cannot be reused. */
function tooLarge(closeConnection: boolean): Response {
  const res = problemResponse('file-too-large', `A file can be at most ${MAX_UPLOAD_BYTES} bytes (15MB).`);
  if (closeConnection) res.headers.set('connection', 'close');
  return res;
}

type Received =
  | { kind: 'none' }
  | { kind: 'name-too-long'; fileName: string }
  | { kind: 'not-accepted'; fileName: string }
  | { kind: 'file'; fileName: string; size: number; truncated: boolean };

class BodyTooLarge extends Error {}
class StoreFailed extends Error {
  constructor(override readonly cause: unknown) { super('the file store failed'); }
}

/**
 * The browser's file name without any folder a client may have sent, without control characters,
 * and without invisible format characters (Cf: bidi overrides and isolates, zero-width characters,
 * BOM), which could make a name display as something it is not ("report\u202Efdp.csv" shows as
 * "reportvsc.pdf"). Line and paragraph separators go too: they break a name over lines.
 */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  return base.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '').trim();
}

function receive(body: ReadableStream<Uint8Array>, contentType: string, store: FileStore, key: string, accepts: (fileName: string) => boolean): Promise<Received> {
  return new Promise((resolve, reject) => {
    let result: Received = { kind: 'none' };
    let storing: Promise<unknown> = Promise.resolve();
    let storeFailure: StoreFailed | undefined;
    let bb: busboy.Busboy | undefined;
    let total = 0;
    const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        total += chunk.length;
        if (total > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD + DRAIN_ALLOWANCE) cb(new BodyTooLarge());
        else cb(null, chunk);
      },
    });

    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      if (err === undefined) {
        void storing.then(() => (storeFailure ? reject(storeFailure) : resolve(result)));
        return;
      }
      source.unpipe();
      source.destroy();
      counter.destroy();
      // also ends an open file part, so the store's pipeline settles and removes what it wrote
      bb?.destroy(err instanceof Error ? err : new Error(String(err)));
      void storing.then(() => reject(err));
    };
    source.on('error', finish);
    counter.on('error', finish);

    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        // busboy reports reaching fileSize as truncation: one byte more than the limit marks a file too large
        limits: { files: 1, fileSize: MAX_UPLOAD_BYTES + 1, fields: 10, fieldSize: 1024, parts: 20, headerPairs: 20 },
        defParamCharset: 'utf8',
      });
    } catch (err) {
      finish(err);
      return;
    }
    bb.on('error', finish);
    bb.on('close', () => finish());

    bb.on('file', (name, stream, info) => {
      stream.on('error', finish);
      if (name !== 'file' || result.kind !== 'none') { stream.resume(); return; }
      const fileName = cleanFileName(info.filename ?? '');
      if (fileNameLength(fileName) > MAX_FILE_NAME_LENGTH) {
        result = { kind: 'name-too-long', fileName };
        stream.resume();
        return;
      }
      if (!accepts(fileName)) {
        result = { kind: 'not-accepted', fileName };
        stream.resume();
        return;
      }
      const file: Extract<Received, { kind: 'file' }> = { kind: 'file', fileName, size: 0, truncated: false };
      result = file;
      stream.on('limit', () => { file.truncated = true; });
      storing = store.put(key, stream).then(({ size }) => { file.size = size; }, (err: unknown) => {
        // when the body failed first, that error has settled the promise already
        storeFailure = new StoreFailed(err);
        finish(storeFailure);
      });
    });

    source.pipe(counter).pipe(bb);
  });
}
