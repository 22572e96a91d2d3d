import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The API contracts' endpoint summaries (`endpoint({ summary })` in src/domain/api) are words for
 * the OpenAPI document the server builds; the browser's copy of a contract only calls and checks.
 * The build leaves them out of the app's chunks (an empty string each), so each screen that calls
 * a service loads that much less. Only the `summary` of an `endpoint(...)` call is touched: a
 * schema's field of that name (a record's summary) stays.
 */
function contractSummariesLeftOut(): Plugin {
  const contract = /[\\/]src[\\/]domain[\\/]api[\\/][^\\/]+\.ts$/;
  type Node = { type: string; start: number; end: number; [key: string]: unknown };
  return {
    name: 'tributary:contract-summaries-left-out',
    apply: 'build',
    transform(code, id) {
      if (!contract.test(id.split('?')[0]!) || !code.includes('summary')) return null;
      const cuts: [number, number][] = [];
      const visit = (node: unknown): void => {
        if (!node || typeof node !== 'object') return;
        if (Array.isArray(node)) { node.forEach(visit); return; }
        const n = node as Node;
        const callee = n.callee as Node & { name?: string } | undefined;
        if (n.type === 'CallExpression' && callee?.type === 'Identifier' && callee.name === 'endpoint') {
          const [options] = n.arguments as Node[];
          for (const p of (options?.type === 'ObjectExpression' ? options.properties as Node[] : [])) {
            const key = p.key as Node & { name?: string; value?: unknown } | undefined;
            if (p.type === 'Property' && (key?.name === 'summary' || key?.value === 'summary')) cuts.push([(p.value as Node).start, (p.value as Node).end]);
          }
        }
        for (const value of Object.values(n)) if (value && typeof value === 'object') visit(value);
      };
      visit(this.parse(code));
      if (!cuts.length) return null;
      let out = code;
      for (const [start, end] of cuts.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, start)}''${out.slice(end)}`;
      return { code: out, map: null };
    },
  };
}

/**
 * Mantine's styles per component, in the chunk that uses the component. Every Mantine component
 * imports its own `X.module.mjs` (its class names); this adds that component's stylesheet to it, so
 * a component's CSS travels with its code: the landing page gets only the styles it draws, each
 * lazy screen brings the rest, and a component someone starts using is never left unstyled.
 * (`@mantine/core/styles.css` whole is 250 KB, most of it for components the app never shows.)
 */
function mantineStylesPerComponent(): Plugin {
  const moduleFile = /^(.*[\\/]node_modules[\\/]@mantine[\\/]([a-z-]+))[\\/]esm[\\/](?:.*[\\/])?([A-Za-z]+)\.module\.mjs$/;
  return {
    name: 'tributary:mantine-styles-per-component',
    enforce: 'pre',
    transform(code, id) {
      const m = moduleFile.exec(id.split('?')[0]!);
      if (!m) return null;
      const [, packageRoot, pkg, component] = m;
      const file = pkg === 'core' ? `styles/${component}.css` : 'styles.css';
      if (!fs.existsSync(path.join(packageRoot!, file))) return null;
      const stylesheet = `@mantine/${pkg}/${file}`;
      // appended, so the lines keep their places and the source map stays true (imports are hoisted anyway)
      return { code: `${code}\nimport ${JSON.stringify(stylesheet)};\n`, map: null };
    },
  };
}

/**
 * Mantine's base styles (reset, theme variables, focus and helper classes), linked first in the
 * page's head. Mantine's own stylesheet puts them before every component's, and some component
 * rules override them at equal specificity; bundled with the entry they would come after the
 * component styles of the chunks the entry imports.
 *
 * In development Vite pre-bundles Mantine without running plugins over it, so the styles per
 * component cannot follow the code there: the page links each Mantine package's whole stylesheet.
 */
function mantineBaseStylesFirst(): Plugin {
  const NAME = 'mantine-base.css';
  const resolve = (id: string) => createRequire(import.meta.url).resolve(id);
  const base = ['baseline.css', 'default-css-variables.css', 'global.css'].map((f) => resolve(`@mantine/core/styles/${f}`));
  const whole = () => Object.keys((JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies)
    .filter((p) => p.startsWith('@mantine/'))
    .flatMap((p) => { try { return [resolve(`${p}/styles.css`)]; } catch { return []; } });
  let command: 'build' | 'serve' = 'build';
  return {
    name: 'tributary:mantine-base-styles-first',
    configResolved(config) { command = config.command; },
    buildStart() {
      if (command === 'build') this.emitFile({ type: 'asset', name: NAME, source: base.map((f) => fs.readFileSync(f, 'utf8')).join('\n') });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const hrefs = ctx.server
          ? whole().map((f) => `/@fs${f}`)
          : Object.values(ctx.bundle ?? {}).filter((a) => a.type === 'asset' && a.names.includes(NAME)).map((a) => `/${a.fileName}`);
        const links = hrefs.map((href) => `\n    <link rel="stylesheet" crossorigin href="${href}">`).join('');
        // before every stylesheet and script Vite adds
        return html.includes('</title>') ? html.replace('</title>', `</title>${links}`) : html.replace('<head>', `<head>${links}`);
      },
    },
  };
}

/**
 * Mantine's ScrollArea (inside every Table) takes one helper from Floating UI, useMergeRefs, and
 * with it the whole positioning library, about 13 KB (brotli), onto every screen with a table. Its
 * import is answered by src/ui/mergeRefs.ts, the same merged callback ref from Mantine's own hooks.
 * Should ScrollArea ask Floating UI for more, the build fails on the missing export.
 */
function scrollAreaWithoutFloatingUi(): Plugin {
  const helper = path.join(import.meta.dirname, 'src', 'ui', 'mergeRefs.ts');
  const scrollArea = /[\\/]@mantine[\\/]core[\\/]esm[\\/]components[\\/]ScrollArea[\\/]/;
  return {
    name: 'tributary:scroll-area-without-floating-ui',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === '@floating-ui/react' && importer && scrollArea.test(importer) ? helper : null;
    },
  };
}

const TEXT_ASSET = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest)$/i;
/** below this, compression saves less than the headers it costs */
const MIN_COMPRESS_BYTES = 1024;

/**
 * Brotli and gzip beside every text asset (`x.js.br`, `x.js.gz`), made once at build time at the
 * highest levels, so the server only picks a file (server/http/static.ts). Source maps are left
 * alone: they are never served.
 */
function precompress(): Plugin {
  let outDir = '';
  const brotli = promisify(zlib.brotliCompress);
  const gzip = promisify(zlib.gzip);
  const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  return {
    name: 'tributary:precompress',
    apply: 'build',
    configResolved(config) { outDir = path.resolve(config.root, config.build.outDir); },
    async closeBundle() {
      const files = walk(outDir).filter((f) => TEXT_ASSET.test(f) && !f.includes(`${path.sep}.vite${path.sep}`));
      await Promise.all(files.map(async (file) => {
        const bytes = await fs.promises.readFile(file);
        if (bytes.length < MIN_COMPRESS_BYTES) return;
        const [br, gz] = await Promise.all([
          brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
          gzip(bytes, { level: 9 }),
        ]);
        // a variant no smaller than the file itself is not worth sending
        if (br.length < bytes.length) await fs.promises.writeFile(`${file}.br`, br);
        if (gz.length < bytes.length) await fs.promises.writeFile(`${file}.gz`, gz);
      }));
    },
  };
}

export default defineConfig({
  plugins: [react(), contractSummariesLeftOut(), mantineBaseStylesFirst(), mantineStylesPerComponent(), scrollAreaWithoutFloatingUi(), precompress()],
  build: {
    outDir: 'dist',
    sourcemap: 'hidden',
    // the manifest says which chunks each entry and lazy screen loads: the size budgets read it (tests/support/bundleSize.ts)
    manifest: true,
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      output: {
        /*
         * Fewer, larger chunks where they always load together: brotli compresses one file of many
         * modules far better than many small files. Everything the page loads first is one chunk;
         * everything every signed-in screen loads (the shell and the flag client, with their
         * dependencies) is another, whichever screen shares them. The rest splits by screen.
         */
        codeSplitting: {
          groups: [
            { name: 'index', tags: ['$initial'], priority: 2 },
            { name: 'signed-in', test: /[\\/]src[\\/](views[\\/]shell[\\/]AppLayout\.tsx|machines[\\/]flags\.ts)$/, priority: 1 },
          ],
        },
      },
    },
  },
});
