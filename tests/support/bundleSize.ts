/**
 * What the built app sends a browser, read from a build's Vite manifest (`build.manifest`): each
 * chunk's size raw, gzipped and brotli-compressed, which chunks the landing route loads (the entry
 * and everything it imports statically), and what a lazy screen adds. The size budgets of
 * tests/unit/bundleBudgets.test.ts and the table of `npm run bench` both come from here.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

export const KB = 1024;

/**
 * The budgets count compressed bytes as a browser downloads them: brotli, which the server sends
 * every browser that asks for it (all current ones do over HTTPS). gzip, for the others, is
 * printed beside it.
 */
export const BUDGET_ENCODING = 'brotli' satisfies keyof Sizes;

/** The budgets, in compressed bytes (BUDGET_ENCODING). */
export const BUDGETS = {
  /** the landing page's JavaScript: the entry and its static imports */
  landingJs: 150 * KB,
  /** the signed-in Data Queue: the landing route's JavaScript plus what the shell and the screen load */
  dataQueueJs: 250 * KB,
  /** every stylesheet of the app together */
  css: 40 * KB,
} as const;

export interface ManifestChunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface Sizes { raw: number; gzip: number; brotli: number }

export const readManifest = (dist: string): Manifest =>
  JSON.parse(fs.readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8')) as Manifest;

/** The sizes of one built file; the precompressed `.gz`/`.br` beside it when the build made them (they are what is served). */
export function fileSizes(dist: string, file: string): Sizes {
  const full = path.join(dist, file);
  const bytes = fs.readFileSync(full);
  const beside = (ext: string, make: () => Buffer) => (fs.existsSync(`${full}${ext}`) ? fs.statSync(`${full}${ext}`).size : make().length);
  return {
    raw: bytes.length,
    gzip: beside('.gz', () => zlib.gzipSync(bytes, { level: 9 })),
    brotli: beside('.br', () => zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } })),
  };
}

export const sum = (xs: Sizes[]): Sizes => xs.reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli }), { raw: 0, gzip: 0, brotli: 0 });

/** The manifest keys of the chunks `keys` load before they run: themselves and their static imports, transitively. */
export function staticClosure(manifest: Manifest, keys: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const k of manifest[key]?.imports ?? []) visit(k);
  };
  keys.forEach(visit);
  return seen;
}

export const entryKeys = (manifest: Manifest): string[] => Object.keys(manifest).filter((k) => manifest[k]!.isEntry);

/** The JavaScript and CSS files of a set of chunks. */
export function filesOf(manifest: Manifest, keys: Iterable<string>): { js: string[]; css: string[] } {
  const js = new Set<string>();
  const css = new Set<string>();
  for (const k of keys) {
    const chunk = manifest[k]!;
    if (chunk.file.endsWith('.js')) js.add(chunk.file);
    for (const c of chunk.css ?? []) css.add(c);
  }
  return { js: [...js], css: [...css] };
}

/** Every built JavaScript and CSS file under assets/. */
export function allAssets(dist: string): { js: string[]; css: string[] } {
  const files = fs.readdirSync(path.join(dist, 'assets')).map((f) => `assets/${f}`);
  return { js: files.filter((f) => f.endsWith('.js')), css: files.filter((f) => f.endsWith('.css')) };
}

/** The files index.html itself names: the entry script, the chunks it preloads, the stylesheets it links. */
export function pageAssets(dist: string): string[] {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  return [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="\/(assets\/[^"?#]+)"/g)].map((m) => m[1]!);
}

/**
 * What the landing route loads before it can show anything: the page's own assets and the entry
 * with its static imports. The landing page itself is in the entry (src/views/shell/screens.tsx);
 * everything else arrives through dynamic imports.
 */
export function landingRoute(dist: string, manifest: Manifest) {
  const keys = staticClosure(manifest, entryKeys(manifest));
  const files = filesOf(manifest, keys);
  const linked = pageAssets(dist);
  return {
    keys,
    js: [...new Set([...files.js, ...linked.filter((f) => f.endsWith('.js'))])],
    css: [...new Set([...linked.filter((f) => f.endsWith('.css')), ...files.css])],
  };
}

/** The chunks a lazy module (by its source path, e.g. `src/views/upload/UploadPage.tsx`) adds to the landing route's. */
export function lazyModule(dist: string, manifest: Manifest, src: string) {
  if (!manifest[src]?.isDynamicEntry) throw new Error(`${src} is not loaded lazily in this build`);
  const landing = landingRoute(dist, manifest).keys;
  const keys = new Set([...staticClosure(manifest, [src])].filter((k) => !landing.has(k)));
  return { keys, ...filesOf(manifest, keys) };
}

/**
 * The source files and packages a chunk is made of, by bytes of its minified code, read from its
 * (hidden) source map: each mapped stretch of a line counts for the source it comes from.
 */
export function chunkSources(dist: string, file: string): Map<string, number> {
  const mapFile = path.join(dist, `${file}.map`);
  const bytesBy = new Map<string, number>();
  if (!fs.existsSync(mapFile)) return bytesBy;
  const map = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[]; mappings: string };
  const lines = fs.readFileSync(path.join(dist, file), 'utf8').split('\n');
  const owner = map.sources.map(sourceGroup);
  let source = 0;
  map.mappings.split(';').forEach((line, lineNo) => {
    let column = 0;
    const segments: [number, number][] = [];
    for (const segment of line ? line.split(',') : []) {
      const fields = decodeVlq(segment);
      column += fields[0]!;
      if (fields.length >= 4) source += fields[1]!;
      // a segment without a source ends the stretch before it
      segments.push([column, fields.length >= 4 ? source : -1]);
    }
    const length = lines[lineNo]?.length ?? 0;
    segments.forEach(([start, src], i) => {
      if (src < 0) return;
      const end = segments[i + 1]?.[0] ?? length;
      const key = owner[src] ?? '?';
      bytesBy.set(key, (bytesBy.get(key) ?? 0) + Math.max(0, end - start));
    });
  });
  return bytesBy;
}

/** The source files of a chunk, by its source map: paths under src/ as they are, packages as `node_modules/<package>/...`. */
export function chunkSourceFiles(dist: string, file: string): string[] {
  const mapFile = path.join(dist, `${file}.map`);
  if (!fs.existsSync(mapFile)) return [];
  const { sources } = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[] };
  return sources.map((s) => s.replace(/^(\.\.\/)+/, '').replace(/^.*?\/(node_modules\/)/, '$1'));
}

/** A package's name for files under node_modules, else the source folder (two levels: `src/views/...`). */
export function sourceGroup(source: string): string {
  const nm = source.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = source.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const rel = source.replace(/^(\.\.\/)+/, '').replace(/^.*?(src\/)/, '$1');
  return rel.split('/').slice(0, 3).join('/');
}

const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function decodeVlq(segment: string): number[] {
  const out: number[] = [];
  let value = 0, shift = 0;
  for (const ch of segment) {
    const digit = VLQ.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) { shift += 5; continue; }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0; shift = 0;
  }
  return out;
}

/**
 * The production build to measure: under `npm test`, the one it made into dist/ for this and the
 * end-to-end run (scripts/test-suites.ts names the file that says it is done in TRIBUTARY_APP_BUILD);
 * otherwise a new one in a temporary folder, which `owned` says the caller removes.
 */
export async function testBuild(waitMs = 230_000): Promise<{ dist: string; owned: boolean }> {
  const done = process.env.TRIBUTARY_APP_BUILD;
  if (!done) return { dist: await buildInto(), owned: true };
  const deadline = Date.now() + waitMs;
  while (!fs.existsSync(done)) {
    if (Date.now() > deadline) throw new Error(`The production build npm test makes was not done after ${waitMs / 1000} s (no ${done})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const build = JSON.parse(fs.readFileSync(done, 'utf8')) as { code: number; dist: string; error?: string };
  if (build.code !== 0) throw new Error(`The production build failed: ${build.error}`);
  return { dist: build.dist, owned: false };
}

/**
 * Builds the app for production into a new temporary folder, as `npm run build` does (the
 * precompressed files included), in a child process so the caller's NODE_ENV and Vite stay its own.
 */
export async function buildInto(root = process.cwd()): Promise<string> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-build-'));
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
      cwd: root, env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d; });
    child.stderr.on('data', (d: Buffer) => { output += d; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build failed (${code}):\n${output}`))));
  });
  return outDir;
}

const kb = (n: number) => (n / KB).toFixed(1);

/** A fixed-width table of files and their sizes, the largest first, with a total line. */
export function sizeTable(dist: string, rows: { file: string; note?: string }[]): string {
  const sized = rows.map((r) => ({ ...r, ...fileSizes(dist, r.file) })).sort((a, b) => b.gzip - a.gzip);
  const total = sum(sized);
  const width = Math.max(30, ...sized.map((r) => r.file.length));
  const line = (file: string, s: Sizes, note = '') => `  ${file.padEnd(width)} ${kb(s.raw).padStart(9)} ${kb(s.gzip).padStart(8)} ${kb(s.brotli).padStart(8)}  ${note}`;
  return [
    `  ${'file'.padEnd(width)} ${'raw KB'.padStart(9)} ${'gzip KB'.padStart(8)} ${'br KB'.padStart(8)}  loaded by`,
    ...sized.map((r) => line(r.file, r, r.note)),
    line('total', total),
  ].join('\n');
}

/** What loads each chunk: the entry, or the lazy modules whose import brings it. */
export function chunkNotes(dist: string, manifest: Manifest): Map<string, string> {
  const first = landingRoute(dist, manifest);
  const landing = first.keys;
  const notes = new Map<string, Set<string>>();
  const note = (file: string, by: string) => { if (!notes.has(file)) notes.set(file, new Set()); notes.get(file)!.add(by); };
  for (const f of [...first.js, ...first.css]) note(f, 'landing');
  for (const [k, chunk] of Object.entries(manifest)) {
    if (!chunk.isDynamicEntry) continue;
    const by = (chunk.src ?? k).replace(/^src\//, '');
    for (const dep of staticClosure(manifest, [k])) {
      if (landing.has(dep)) continue;
      note(manifest[dep]!.file, by);
      for (const c of manifest[dep]!.css ?? []) note(c, by);
    }
  }
  return new Map([...notes].map(([file, by]) => [file, by.has('landing') ? 'landing' : by.size > 3 ? `${by.size} lazy modules` : [...by].join(', ')]));
}
