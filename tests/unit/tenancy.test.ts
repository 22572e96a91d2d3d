/**
 * Tenancy by construction (DESIGN.md section 4a): only the repositories of server/db/repositories
 * filter tenant-owned rows by tenant; everything else goes through forTenant. A hand-written
 * tenant filter anywhere else fails here, so a new query cannot forget the tenant quietly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** A filter on a table's tenant column, in drizzle or in SQL. */
const TENANT_FILTER = /\beq\(\s*[\w.]+\.tenantId\s*,|\btenant_id\s*=|\.where\([^)]*tenantId/;
/** Memberships say which tenants a user belongs to: identity, not tenant-owned data. */
const ALLOWED = /memberships\.tenantId/;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export function handWrittenTenantFilters(root: string): string[] {
  const owned = [path.join(root, 'server/db/repositories'), path.join(root, 'server/db/schema'), path.join(root, 'server/db/migrations')];
  return files(path.join(root, 'server')).filter((f) => !owned.some((o) => f.startsWith(o))).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n')
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => TENANT_FILTER.test(line) && !ALLOWED.test(line))
    .map(({ line, i }) => `${path.relative(root, f)}:${i + 1}: ${line.trim()}`));
}

describe('tenant filters', () => {
  it('are written only in server/db/repositories', () => {
    expect(handWrittenTenantFilters(process.cwd())).toEqual([]);
  });

  it('notices one written anywhere else', () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'tenancy-'));
    fs.mkdirSync(path.join(root, 'server/services'), { recursive: true });
    fs.mkdirSync(path.join(root, 'server/db/repositories'), { recursive: true });
    fs.writeFileSync(path.join(root, 'server/db/repositories/ok.ts'), 'db.select().from(t).where(eq(t.tenantId, tenantId));\n');
    fs.writeFileSync(path.join(root, 'server/services/bad.ts'), 'db.select().from(formulas).where(eq(formulas.tenantId, id));\nsql`select 1 from records where tenant_id = ${id}`;\n');
    try {
      expect(handWrittenTenantFilters(root)).toEqual([
        'server/services/bad.ts:1: db.select().from(formulas).where(eq(formulas.tenantId, id));',
        'server/services/bad.ts:2: sql`select 1 from records where tenant_id = ${id}`;',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
