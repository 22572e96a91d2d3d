/**
 * The direction of imports (DESIGN.md section 2):
 *   views -> machines -> services -> domain; server/* -> domain; domain imports nothing of ours;
 *   src/ui (shared presentational components, used by views) imports only src/domain;
 *   the app never imports src/devtools (the statechart viewer and live inspection) but through
 *   the shell's lazy routes and the one dynamic import that loads live inspection;
 *   on the server, routers reach the database only through the tenant scope (and sign-in), services
 *   queue jobs only through the enqueue they are given, the identity provider is below the services,
 *   and the database layer below the connectors;
 *   a machine keeps its service clients to its own actors: it re-exports nothing of src/services
 *   and exports no object that bundles a client (a view would reach I/O through it).
 * esbuild resolves every import of every source file (TypeScript 7 has no compiler API for
 * dependency-cruiser and the like); each resolved edge is checked against the rules below, and so
 * is each type-only import, which esbuild drops before resolving (read from the source text).
 */
import fs from 'node:fs';
import path from 'node:path';
import { build, type ImportKind } from 'esbuild';

/** An edge a rule lets through: only of this kind (a dynamic `import()` keeps the target out of the importer's bundle). */
interface Exception { from: RegExp; to: RegExp; kind: ImportKind }

interface Rule { name: string; from: RegExp; to: RegExp; why: string; except?: Exception[] }

export const RULES: Rule[] = [
  { name: 'domain-is-pure', from: /^src\/domain\//, to: /^(?!src\/domain\/|node_modules\/valibot\/)/, why: 'src/domain imports nothing of ours, and no React, DOM or Node APIs' },
  {
    name: 'ui-is-presentational',
    from: /^src\/ui\//,
    // of ours only src/domain (and src/ui itself); of libraries none that runs a machine or fetches
    to: /^(src\/(?!domain\/|ui\/)|node:|node_modules\/(xstate|@xstate\/[^/]+|ky)\/)/,
    why: 'src/ui is shared presentational components: of ours it imports only src/domain, and it fetches nothing and runs no machine',
  },
  { name: 'services-below-machines', from: /^src\/services\//, to: /^src\/(machines|views|ui)\//, why: 'services are reached through machines' },
  { name: 'machines-below-views', from: /^src\/(devtools\/)?machines\//, to: /^(src\/(views|ui|devtools\/views)\/|node_modules\/(react|react-dom|@mantine\/[^/]+|@xstate\/react)\/)/, why: 'machines import without React' },
  { name: 'views-go-through-machines', from: /^src\/(devtools\/)?views\//, to: /^src\/(services\/|devtools\/(inspection|inspectionLoader|layout)\.ts$)/, why: 'views render machine state; I/O belongs to services behind machines' },
  {
    name: 'app-not-devtools',
    from: /^src\/(?!devtools\/)/,
    to: /^src\/devtools\//,
    why: 'the app reaches the devtools only through the shell\'s lazy routes and the dynamic import of live inspection in src/services/inspection.ts',
    except: [
      { from: /^src\/views\/shell\/[^/]+\.tsx$/, to: /^src\/devtools\/views\/[^/]+\.tsx$/, kind: 'dynamic-import' },
      { from: /^src\/services\/inspection\.ts$/, to: /^src\/devtools\/inspection\.ts$/, kind: 'dynamic-import' },
    ],
  },
  { name: 'browser-not-server', from: /^src\//, to: /^server\//, why: 'the browser never imports the server' },
  { name: 'server-shares-only-domain', from: /^server\//, to: /^src\/(?!domain\/)/, why: 'the server shares only src/domain with the browser' },
  { name: 'product-not-tests', from: /^(src|server)\//, to: /^(tests|scripts)\//, why: 'the product never imports tests' },
  // the server's layers: main.ts and worker.ts build the services once (server/container.ts) and hand them down
  {
    name: 'http-calls-services',
    from: /^server\/http\/(?!auth\.ts$)/,
    to: /^server\/db\/(?!tenancy\.ts$)/,
    why: 'routers parse, call a service and answer: of the database they see only the tenant scope, and only server/http/auth.ts reads accounts',
  },
  { name: 'services-not-jobs', from: /^server\/services\//, to: /^server\/jobs\//, why: 'a service queues work through the enqueue it is given (server/container.ts), never through a job definition' },
  { name: 'identity-not-services', from: /^server\/identity\//, to: /^server\/services\//, why: 'the identity provider is below the services: what it records is handed to it (server/main.ts)' },
  {
    name: 'db-not-connectors',
    from: /^server\/db\//,
    to: /^server\/connectors\//,
    why: 'the database layer is below the connectors: a system\'s own store sits beside its connector, opened through the tenant scope',
  },
];

const NODE_BUILTIN = /^(node:|fs$|path$|crypto$|http$|https$|os$|child_process$|net$|url$|stream$|util$|events$)/;

function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

export async function checkImports(root = process.cwd()): Promise<string[]> {
  const entryPoints = ['src', 'server', 'tests', 'scripts'].flatMap((d) => sources(path.join(root, d)));
  const result = await build({
    entryPoints, absWorkingDir: root, bundle: true, write: false, metafile: true, outdir: 'out',
    platform: 'neutral', format: 'esm', logLevel: 'silent', jsx: 'automatic', splitting: true,
    // resolve packages to their files so rules can name them, but never read past the first hop
    plugins: [{
      name: 'stop-at-packages',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, async (args) => {
          if (NODE_BUILTIN.test(args.path)) return { path: `node:${args.path.replace(/^node:/, '')}`, external: true };
          return { path: `node_modules/${args.path}/`, external: true };
        });
      },
    }],
    loader: { '.css': 'empty', '.svg': 'empty', '.png': 'empty' },
  });
  const problems: string[] = [];
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    for (const imp of input.imports) {
      const target = imp.path;
      if (file.startsWith('src/domain/') && target.startsWith('node:')) {
        problems.push(`${file} -> ${target}: [domain-is-pure] src/domain uses no Node APIs`);
        continue;
      }
      for (const rule of RULES) {
        if (!rule.from.test(file) || !rule.to.test(target) || (target.startsWith('node:') && rule.name === 'domain-is-pure')) continue;
        if (rule.except?.some((e) => e.from.test(file) && e.to.test(target) && e.kind === imp.kind)) continue;
        const how = imp.kind === 'dynamic-import' ? ' (dynamic import)' : '';
        problems.push(`${file} -> ${target}${how}: [${rule.name}] ${rule.why}`);
      }
    }
  }
  problems.push(...serviceHandOuts(root, entryPoints));
  for (const edge of typeOnlyImports(root, entryPoints)) {
    for (const rule of RULES) {
      if (!rule.from.test(edge.file) || !rule.to.test(edge.target)) continue;
      problems.push(`${edge.file} -> ${edge.target} (type-only import): [${rule.name}] ${rule.why}`);
    }
  }
  return problems;
}

/**
 * The imports esbuild drops before it resolves anything: `import type`, `export type ... from`,
 * and imports whose every name is a type. A type reaching across a boundary ties the layers as
 * much as a value does, so the same rules apply. Only relative imports of our own files are read.
 */
export function typeOnlyImports(root: string, files: readonly string[]): { file: string; target: string }[] {
  const edges: { file: string; target: string }[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+\w+|\w+)\s+from\s+['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const abs of files) {
    const text = fs.readFileSync(abs, 'utf8');
    const file = path.relative(root, abs).split(path.sep).join('/');
    for (const m of text.matchAll(statement)) {
      const [, , typeKeyword, names, spec] = m;
      const allTypes = names!.startsWith('{') && names!.slice(1, -1).split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '));
      if (!typeKeyword && !allTypes) continue;
      const target = path.relative(root, path.resolve(path.dirname(abs), spec!)).split(path.sep).join('/');
      edges.push({ file, target });
    }
  }
  return edges;
}

export const HAND_OUT_RULE = {
  name: 'machines-hand-out-no-services',
  from: /^src\/(devtools\/)?machines\//,
  to: /^src\/services\//,
  why: 'a machine keeps its service clients to its own actors (tests swap them with machine.provide); exporting one, or an object holding one, lets a view reach I/O around the machine',
};

/** The text with comments blanked out (strings and templates kept), so the patterns below see only code. */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === '\'' || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

/** The expression from `start` to the end of its statement: a `;`, or a line starting a new statement, outside any brackets. */
function expressionAt(code: string, start: number): string {
  let depth = 0;
  for (let i = start; i < code.length; i += 1) {
    const c = code[i]!;
    if (c === '\'' || c === '"' || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      i = j;
    } else if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) {
      if (depth === 0) return code.slice(start, i);
      depth -= 1;
    } else if (depth === 0 && c === ';') return code.slice(start, i);
    else if (depth === 0 && c === '\n' && /^\s*(export|import|const|let|var|function|class|type|interface|async|declare|enum)\b/.test(code.slice(i + 1, i + 40))) return code.slice(start, i);
  }
  return code.slice(start);
}

/** The entries of an object or array literal's body, split at its own commas. */
function entriesOf(body: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i]!;
    if (c === '\'' || c === '"' || c === '`') {
      let j = i + 1;
      while (j < body.length && body[j] !== c) j += body[j] === '\\' ? 2 : 1;
      i = j;
    } else if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) depth -= 1;
    else if (c === ',' && depth === 0) { entries.push(body.slice(from, i).trim()); from = i + 1; }
  }
  entries.push(body.slice(from).trim());
  return entries.filter(Boolean);
}

/**
 * The service module an expression hands out, if it does: a client imported from src/services (or
 * a member of one), a name that holds one, or an object or array literal (frozen or assigned too)
 * with one among its values.
 */
function handsOut(expression: string, held: Map<string, string>): string | null {
  let e = expression.trim().replace(/\s+(as|satisfies)\s+[\s\S]*$/, '').trim();
  while (e.startsWith('(') && e.endsWith(')')) e = e.slice(1, -1).trim();
  const name = /^([A-Za-z_$][\w$]*)(\s*(\?\.|\.)\s*[\w$]+|\s*\[[^\]]*\])*$/.exec(e);
  if (name) return held.get(name[1]!) ?? null;
  const wrapped = /^Object\s*\.\s*(freeze|assign)\s*\(([\s\S]*)\)$/.exec(e);
  if (wrapped) return entriesOf(wrapped[2]!).map((a) => handsOut(a, held)).find(Boolean) ?? null;
  if ((e.startsWith('{') && e.endsWith('}')) || (e.startsWith('[') && e.endsWith(']'))) {
    const isObject = e.startsWith('{');
    for (const entry of entriesOf(e.slice(1, -1))) {
      const spread = /^\.\.\.([\s\S]+)$/.exec(entry);
      const keyed = isObject ? /^(?:[\w$]+|'[^']*'|"[^"]*"|\[[^\]]*\])\s*:\s*([\s\S]+)$/.exec(entry) : null;
      const value = spread?.[1] ?? keyed?.[1] ?? (!isObject || /^[\w$]+$/.test(entry) ? entry : null);
      const found = value === null ? null : handsOut(value, held);
      if (found) return found;
    }
  }
  return null;
}

/**
 * A machine that hands out its service clients: `export ... from` a src/services module, or an
 * export (a name, a default, a declaration) of a client imported from one, or of an object that
 * holds one. Type-only exports carry no I/O and pass; what a machine builds from its clients (an
 * actor, a step's loads) passes too.
 */
export function serviceHandOuts(root: string, files: readonly string[]): string[] {
  const problems: string[] = [];
  const say = (file: string, target: string, what: string) => problems.push(`${file} -> ${target} (${what}): [${HAND_OUT_RULE.name}] ${HAND_OUT_RULE.why}`);
  for (const abs of files) {
    const file = path.relative(root, abs).split(path.sep).join('/');
    if (!HAND_OUT_RULE.from.test(file)) continue;
    const code = withoutComments(fs.readFileSync(abs, 'utf8'));
    const targetOf = (spec: string) => (spec.startsWith('.') ? path.relative(root, path.resolve(path.dirname(abs), spec)).split(path.sep).join('/') : spec);
    const isService = (spec: string) => HAND_OUT_RULE.to.test(targetOf(spec));
    const valueNames = (list: string) => list.split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));

    // the clients imported from src/services, by their local names
    const held = new Map<string, string>();
    for (const m of code.matchAll(/(?:^|[;\n])\s*import\s+(?!type\s)([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/g)) {
      const [, clause, spec] = m;
      if (!isService(spec!)) continue;
      const target = targetOf(spec!);
      const named = /\{([^}]*)\}/.exec(clause!);
      for (const n of named ? valueNames(named[1]!) : []) held.set(n.split(/\s+as\s+/).at(-1)!.trim(), target);
      const rest = clause!.replace(/\{[^}]*\}/, '').split(',').map((x) => x.trim()).filter(Boolean);
      for (const r of rest) held.set(r.replace(/^\*\s+as\s+/, ''), target);
    }

    // re-exports straight from src/services
    for (const m of code.matchAll(/(?:^|[;\n])\s*export\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)\s+from\s+['"]([^'"]+)['"]/g)) {
      const [, typeOnly, names, spec] = m;
      if (typeOnly || !isService(spec!)) continue;
      if (names!.startsWith('{') && valueNames(names!.slice(1, -1)).length === 0) continue;
      say(file, targetOf(spec!), `re-export ${names!.replace(/\s+/g, ' ')}`);
    }

    // names that hold a client (`const calls = { formulas }`), in the order they are declared; then what is exported
    const declarations = [...code.matchAll(/(?:^|[;\n{}])\s*(export\s+)?(?:const|let|var)\s+([\w$]+|\{[^}]*\}|\[[^\]]*\])\s*(?::[^=;]*?)?=(?![=>])/g)];
    for (let pass = 0; pass < 2; pass += 1) {
      for (const m of declarations) {
        const found = handsOut(expressionAt(code, m.index! + m[0].length), held);
        if (!found) continue;
        for (const n of m[2]!.replace(/^[{[]|[}\]]$/g, '').split(',').map((x) => x.split(':').at(-1)!.replace(/=[\s\S]*$/, '').trim()).filter(Boolean)) held.set(n, found);
      }
    }
    for (const m of declarations) {
      if (!m[1]) continue;
      const found = handsOut(expressionAt(code, m.index! + m[0].length), held);
      if (found) say(file, found, `export const ${m[2]}`);
    }
    for (const m of code.matchAll(/(?:^|[;\n])\s*export\s+default\s+(?!function\b|class\b|async\b)/g)) {
      const found = handsOut(expressionAt(code, m.index! + m[0].length), held);
      if (found) say(file, found, 'export default');
    }
    for (const m of code.matchAll(/(?:^|[;\n])\s*export\s*\{([^}]*)\}(?!\s*from)/g)) {
      for (const n of valueNames(m[1]!)) {
        const local = n.split(/\s+as\s+/)[0]!.trim();
        const found = held.get(local);
        if (found) say(file, found, `export { ${n} }`);
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = await checkImports();
  if (problems.length) {
    console.error(`Import direction violated (${problems.length}):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log('Import direction: no violations.');
}
