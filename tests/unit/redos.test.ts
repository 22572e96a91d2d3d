/**
 * Every regular expression in src/ and server/ is linear (DESIGN.md section 6): each literal, and
 * each `RegExp(...)` built from a literal, is read from the parsed source and checked by recheck,
 * a ReDoS checker (automata theory, and fuzzing where that cannot decide). A pattern recheck does
 * not find safe fails here unless ALLOWED says why it cannot hold the process; a RegExp built from
 * something other than a literal fails unless DYNAMIC says why. A new pattern joins by being written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { check, type Diagnostics } from 'recheck';
import { parseAst } from 'vite';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Patterns that are not linear but cannot be given long text, keyed by `/source/flags`: why.
 * A pattern that is a real problem is rewritten, never listed here.
 */
const ALLOWED: Record<string, string> = {
  [String.raw`/^(?!\.)(?!.*\.\.)[^\s@]+(?<!\.)@(?=.{1,253}$)(?:(?!-)[^\s@.]+(?<!-)\.)+(?!\d+$)(?!-)[^\s@.]{2,}(?<!-)$/u`]:
    'the e-mail validation rule (src/domain/formula/validationRules.ts) tests it only on text of at most 254 characters',
};

/** Files that build a RegExp from something other than a literal: why that is linear. None today. */
const DYNAMIC: Record<string, string> = {};

interface Found { where: string; source: string; flags: string }

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(?:ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

type Node = { type?: string; start: number; end: number; [key: string]: unknown };

/** Every regular expression of a file: literals, and RegExp(...) with its pattern as a literal or not. */
function regexesOf(file: string): { found: Found[]; dynamic: string[] } {
  const text = fs.readFileSync(file, 'utf8');
  const rel = path.relative(ROOT, file);
  const ast = parseAst(text, { lang: file.endsWith('x') ? 'tsx' : 'ts' } as never, file) as unknown as Node;
  const line = (pos: number) => text.slice(0, pos).split('\n').length;
  const found: Found[] = [];
  const dynamic: string[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) { node.forEach(visit); return; }
    const n = node as Node;
    const regex = n.regex as { pattern: string; flags: string } | undefined;
    if (n.type === 'Literal' && regex) found.push({ where: `${rel}:${line(n.start)}`, source: regex.pattern, flags: regex.flags });
    const callee = n.callee as Node & { name?: string } | undefined;
    if ((n.type === 'NewExpression' || n.type === 'CallExpression') && callee?.type === 'Identifier' && callee.name === 'RegExp') {
      const [pattern, flags] = n.arguments as (Node & { value?: unknown })[];
      const literal = (a: (Node & { value?: unknown }) | undefined) => a?.type === 'Literal' && typeof a.value === 'string';
      if (literal(pattern) && (flags === undefined || literal(flags))) {
        found.push({ where: `${rel}:${line(n.start)}`, source: pattern!.value as string, flags: (flags?.value as string | undefined) ?? '' });
      } else {
        dynamic.push(`${rel}:${line(n.start)}`);
      }
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'parent') visit(value);
  };
  visit(ast);
  return { found, dynamic };
}

const scanned = ['src', 'server'].flatMap((dir) => sourceFiles(path.join(ROOT, dir))).map(regexesOf);
const all = scanned.flatMap((s) => s.found);
const dynamic = scanned.flatMap((s) => s.dynamic);
const keyOf = (r: { source: string; flags: string }) => `/${r.source}/${r.flags}`;

/**
 * recheck's fuzzing stops on wall-clock timeouts by default, so its verdict could change with the
 * machine's load; without them it stops on counted steps only, and the same source gets the same
 * verdict (the random seed is fixed) on any machine.
 */
const PARAMS = { timeout: null, attackTimeout: null, incubationTimeout: null, seedingTimeout: null, recallTimeout: -1 } as const;
const checked = new Map<string, Promise<Diagnostics>>();
const verdict = (r: { source: string; flags: string }) => {
  if (!checked.has(keyOf(r))) checked.set(keyOf(r), check(r.source, r.flags, PARAMS));
  return checked.get(keyOf(r))!;
};

const describeVerdict = (d: Diagnostics) => d.status === 'vulnerable'
  ? `${d.complexity.type === 'polynomial' ? `degree ${d.complexity.degree} polynomial` : 'exponential'}, attack ${d.attack.pattern}`
  : d.status === 'unknown' ? `unknown (${d.error.kind}${'message' in d.error ? `: ${d.error.message}` : ''})` : d.status;

describe('regular expressions', () => {
  it('are found in the source: literals and RegExp(...) calls, in every file of src/ and server/', () => {
    expect(all.length).toBeGreaterThan(200);
    const files = new Set(all.map((r) => r.where.split(':')[0]));
    for (const file of ['server/services/records.ts', 'src/domain/formula/validationRules.ts', 'src/views/wizard/steps/FormulaTypeStep.tsx']) expect(files).toContain(file);
  });

  it('the checker tells a backtracking pattern from a linear one', async () => {
    expect((await verdict({ source: String.raw`^[^\s@]+@[^\s@]+\.[^\s@]+$`, flags: '' })).status).toBe('vulnerable');
    expect((await verdict({ source: '^.*.*.*.*x$', flags: 'i' })).status).toBe('vulnerable');
    expect((await verdict({ source: String.raw`^\d{4}-\d{2}-\d{2}$`, flags: '' })).status).toBe('safe');
  }, 60_000);

  it('are each linear, or allowed with a reason', async () => {
    const unsafe: string[] = [];
    const seen = new Set<string>();
    await Promise.all(all.map(async (r) => {
      const d = await verdict(r);
      seen.add(keyOf(r));
      if (d.status !== 'safe' && !ALLOWED[keyOf(r)]) unsafe.push(`${r.where} ${keyOf(r)}: ${describeVerdict(d)}`);
    }));
    expect(unsafe.sort()).toEqual([]);
    // an allowance whose pattern is gone or now safe is stale
    for (const key of Object.keys(ALLOWED)) expect(seen.has(key), `${key} is still in the source`).toBe(true);
  }, 120_000);

  it('are built from literals, unless DYNAMIC says why a built one is linear', () => {
    expect(dynamic.filter((where) => !DYNAMIC[where.split(':')[0]!])).toEqual([]);
  });
});
