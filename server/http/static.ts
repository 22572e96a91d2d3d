/**
 * The built browser app (dist/), served as `npm start` serves it:
 * - brotli or gzip, chosen by Accept-Encoding, from the files the build compressed beforehand
 *   (vite.config.ts), with `Vary: Accept-Encoding`;
 * - content-hashed files under /assets/ cached for a year as immutable (a new build makes new names);
 *   everything else (index.html and the client routes that answer with it) revalidated on every
 *   use with a strong ETag, answered 304 when unchanged;
 * - source maps and dot folders (the build's .vite/manifest.json) never served;
 * - a missing /assets/ file, or a missing file of a static type (`/favicon.ico`), is a 404, never
 *   the app's page (a stale tab asking for an old chunk must see it fail, not parse HTML as
 *   JavaScript); any other path is a client route and gets the page.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Context, MiddlewareHandler } from 'hono';
import { problemResponse } from './problem.ts';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** The encodings the build writes beside a file, in the order the server prefers them. */
const ENCODINGS = [{ name: 'br', ext: '.br' }, { name: 'gzip', ext: '.gz' }] as const;
type Encoding = (typeof ENCODINGS)[number]['name'];

interface Variant { file: string; size: number; encoding?: Encoding }
interface StaticFile { mtimeMs: number; size: number; hash: string; contentType: string; variants: Variant[] }

/** The encodings a client accepts (RFC 9110 section 12.5.3): named or by `*`, with a weight above 0. */
export function acceptedEncodings(header: string | undefined): Set<Encoding> {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const q = params.map((p) => /^q=([0-9.]+)$/.exec(p)).find(Boolean);
    weights.set(name, q ? Number(q[1]) : 1);
  }
  const accepted = new Set<Encoding>();
  for (const { name } of ENCODINGS) {
    const weight = weights.get(name) ?? (name === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
    if (weight > 0) accepted.add(name);
  }
  return accepted;
}

/** If-None-Match (weak comparison, as RFC 9110 asks for GET): any listed tag of this content, in any encoding. */
function notModified(header: string | undefined, hash: string): boolean {
  if (!header) return false;
  return header.split(',').some((raw) => {
    const tag = raw.trim().replace(/^W\//, '');
    return tag === '*' || tag === `"${hash}"` || ENCODINGS.some((e) => tag === `"${hash}-${e.name}"`);
  });
}

export function staticApp(root: string, isApiPath: (p: string) => boolean): MiddlewareHandler {
  const base = path.resolve(root);
  const known = new Map<string, StaticFile>();

  /** A file's facts, read again only when it changed on disk (a rebuild while the server runs). */
  async function describe(file: string): Promise<StaticFile | null> {
    const stat = await fs.promises.stat(file).catch(() => null);
    if (!stat?.isFile()) return null;
    const cached = known.get(file);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
    const bytes = await fs.promises.readFile(file);
    const variants: Variant[] = [{ file, size: stat.size }];
    for (const { name, ext } of ENCODINGS) {
      const encoded = await fs.promises.stat(`${file}${ext}`).catch(() => null);
      if (encoded?.isFile()) variants.push({ file: `${file}${ext}`, size: encoded.size, encoding: name });
    }
    const described: StaticFile = {
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      hash: crypto.createHash('sha256').update(bytes).digest('base64url').slice(0, 27),
      contentType: CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
      variants,
    };
    known.set(file, described);
    return described;
  }

  async function send(c: Context, file: StaticFile, cacheControl: string): Promise<Response> {
    const accepted = acceptedEncodings(c.req.header('accept-encoding'));
    // brotli, then gzip, then the file itself (the build keeps only variants smaller than the file)
    const chosen = file.variants.find((v) => v.encoding && accepted.has(v.encoding)) ?? file.variants[0]!;
    const headers: Record<string, string> = {
      'Content-Type': file.contentType,
      'Cache-Control': cacheControl,
      ETag: `"${chosen.encoding ? `${file.hash}-${chosen.encoding}` : file.hash}"`,
    };
    if (file.variants.length > 1) headers.Vary = 'Accept-Encoding';
    if (notModified(c.req.header('if-none-match'), file.hash)) return new Response(null, { status: 304, headers });
    if (chosen.encoding) headers['Content-Encoding'] = chosen.encoding;
    headers['Content-Length'] = String(chosen.size);
    // HEAD: the same headers, no body read
    if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers });
    return new Response(await fs.promises.readFile(chosen.file), { status: 200, headers });
  }

  const page = async (c: Context) => {
    const index = await describe(path.join(base, 'index.html'));
    return index ? send(c, index, REVALIDATE) : problemResponse('not-found');
  };

  return async (c, next) => {
    const requested = c.req.path;
    if (isApiPath(requested)) return next();
    // source maps stay on the server (for our own debugging); the public never gets them
    if (/\.map$/i.test(requested)) return problemResponse('not-found');
    const segments = requested.split(/[/\\]+/).filter(Boolean);
    if (segments.some((s) => s.startsWith('.') || s.includes('\0'))) return problemResponse('not-found');
    const file = path.join(base, ...segments);
    if (!file.startsWith(base + path.sep)) return page(c);
    const found = await describe(file);
    if (found) return send(c, found, segments[0] === 'assets' ? IMMUTABLE : REVALIDATE);
    const ext = path.extname(segments.at(-1) ?? '').toLowerCase();
    if (segments[0] === 'assets' || (ext !== '.html' && Object.hasOwn(CONTENT_TYPES, ext))) return problemResponse('not-found');
    // client-side routes all get the app's page
    return page(c);
  };
}
