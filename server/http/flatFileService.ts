/**
 * The flat file service (/flat-file-service/v1): file upload (SPEC.md sections 4, 5 and 8).
 *
 *   POST /uploads        multipart/form-data with one part named "file"; streamed with busboy to
 *                        the file store under the 15MB limit, scanned by clamd, parsed by content;
 *                        201 with the headers and the first 20 rows. Each refusal is a problem
 *                        whose title names the outcome (src/domain/upload.ts UPLOAD_PROBLEMS).
 *   GET  /uploads/:id    an upload's headers and sample rows (the caller's tenant only).
 *
 * Only the headers and the first 20 rows are kept (SPEC.md section 5): the file itself is
 * removed from the store once they are read.
 */
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import busboy from 'busboy';
import type { Logger } from 'pino';
import { flatFileService } from '../../src/domain/api/flatFile.ts';
import { fileNameLength, hasAcceptedExtension, MAX_FILE_NAME_LENGTH, MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';
import type { Config } from '../config.ts';
import { clamavScanner, type VirusScanner } from '../connectors/flatFile/clamav.ts';
import type { Db } from '../db/database.ts';
import { localFileStore, type FileStore } from '../db/fileStore.ts';
import { uploadsService } from '../services/uploads.ts';
import { isUuid, type TokenVerifier } from './auth.ts';
import { fail, problemResponse } from './problem.ts';
import { contractRouter } from './routes.ts';

/** The upload path; the app's 1MB JSON body limit does not apply to it (server/http/app.ts). */
export const UPLOAD_PATH = '/flat-file-service/v1/uploads';

/** Multipart framing around the file (boundaries, part headers): generous, and still bounded. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** A body this far past the limit is not read to its end: the connection is closed instead. */
const DRAIN_ALLOWANCE = 1024 * 1024;

export interface FlatFileServiceOptions {
  config: Config;
  log: Logger;
  /** defaults: a folder under DATA_DIR, and clamd when configured */
  store?: FileStore;
  scanner?: VirusScanner | null;
}

export function flatFileServiceRouter(db: Db, verifier: TokenVerifier, opts: FlatFileServiceOptions) {
  const store = opts.store ?? localFileStore(path.join(opts.config.dataDir, 'files'));
  const scanner = opts.scanner !== undefined ? opts.scanner : opts.config.clamav ? clamavScanner(opts.config.clamav) : null;
  if (scanner) {
    opts.log.info({ scanner: scanner.description }, 'Uploaded files are scanned for viruses');
    void scanner.ping().then((ok) => {
      if (!ok) opts.log.warn({ scanner: scanner.description }, 'The virus scanner does not answer: uploads are refused until it does');
    });
  } else {
    opts.log.warn('No virus scanner is configured (set CLAMAV_SOCKET, or CLAMAV_HOST and CLAMAV_PORT): uploaded files are accepted and reported as not scanned');
  }

  const service = uploadsService({ store, scanner });
  const { app, on } = contractRouter(db, verifier);
  const api = flatFileService.endpoints;

  // the router reads the multipart body into the store; the service decides what is kept
  on(api.upload, async (c) => {
    const caller = c.var.caller;
    const log = c.var.log;
    const contentType = c.req.header('content-type') ?? '';
    if (!/^multipart\/form-data\s*;/i.test(contentType)) {
      return fail('unsupported-media-type', 'Send the file as multipart/form-data, in a part named "file".');
    }
    const declared = Number(c.req.header('content-length') ?? NaN);
    if (declared > MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD + DRAIN_ALLOWANCE) return tooLarge(true);
    if (!c.req.raw.body) return fail('bad-request', 'The request has no file.');

    const key = `${c.var.tenant.tenantId}/${crypto.randomUUID()}.upload`;
    let received: Received;
    try {
      received = await receive(c.req.raw.body, contentType, store, key);
    } catch (err) {
      await store.remove(key).catch(() => undefined);
      if (err instanceof BodyTooLarge) return tooLarge(true);
      // the store's own failure is ours, not the client's: a logged 500
      if (err instanceof StoreFailed) throw err.cause instanceof Error ? err.cause : err;
      log.info({ err: err instanceof Error ? err.message : String(err) }, 'upload body could not be read');
      return fail('bad-request', 'The upload could not be read as multipart/form-data.');
    }

    try {
      if (received.kind === 'none') return fail('bad-request', 'The request has no part named "file".');
      const { fileName } = received;
      if (received.kind === 'name-too-long') {
        return fail('file-name-too-long', `The file name has ${fileNameLength(fileName)} characters; it must be under 150.`);
      }
      if (received.kind === 'wrong-extension') {
        return fail('file-type-not-accepted', 'Only .csv, .xlsx and .xls files are accepted.');
      }
      if (received.truncated || received.size > MAX_UPLOAD_BYTES) return tooLarge(false);
      if (received.size === 0) return fail('file-empty', 'The file is empty.');
      return c.json(await service.accept(c.var.tenant, caller, { key, fileName, size: received.size }, log), 201);
    } finally {
      await store.remove(key).catch((err: unknown) => log.warn({ err }, 'could not remove an uploaded file'));
    }
  });

  on(api.get, async (c, { params }) => {
    if (!isUuid(params.id)) return fail('not-found');
    return service.get(c.var.tenant, params.id);
  });

  return app;
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
  | { kind: 'wrong-extension'; fileName: string }
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

/**
 * Reads the multipart body: the part named "file" is streamed into the store, at most 15MB of it
 * (busboy truncates beyond and says so); any other part is discarded. A body that runs far past
 * the limit is cut off (BodyTooLarge).
 *
 * Every stream here gets its 'error' listener before anything can emit: an 'error' event without
 * one ends the whole process, and a truncated body, a client that goes away or a failing store all
 * emit one. Whatever fails first settles the promise, but only after every stream is stopped and
 * the store has let go of the file, so the caller's remove() leaves nothing behind.
 */
function receive(body: ReadableStream<Uint8Array>, contentType: string, store: FileStore, key: string): Promise<Received> {
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
      if (!hasAcceptedExtension(fileName)) {
        result = { kind: 'wrong-extension', fileName };
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
