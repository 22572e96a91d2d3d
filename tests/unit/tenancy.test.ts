/**
 * Tenancy by construction (DESIGN.md section 4a): only the repositories of server/db/repositories
 * and a system's own store beside its connector (server/connectors/<system>/store) filter
 * tenant-owned rows by tenant; everything else goes through forTenant. A hand-written tenant
 * filter anywhere else fails here, so a new query cannot forget the tenant quietly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** A filter on a table's tenant column, in drizzle or in SQL. */
const TENANT_FILTER = /\beq\(\s*[\w.]+\.tenantId\s*,|\btenant_id\s*=|\.where\([^)]*tenantId/;
/** Memberships say which tenants a user belongs to: identity, not tenant-owned data. */
const ALLOWED = /memberships\.tenantId/;

/** Where a tenant filter belongs: the scope's repositories, a store opened through it, and the tables' definitions. */
const OWNED = /^server\/(db\/(repositories|schema|migrations)|connectors\/[^/]+\/store)\//;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export function handWrittenTenantFilters(root: string): string[] {
  const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
  return files(path.join(root, 'server')).filter((f) => !OWNED.test(rel(f))).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n')
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => TENANT_FILTER.test(line) && !ALLOWED.test(line))
    .map(({ line, i }) => `${path.relative(root, f)}:${i + 1}: ${line.trim()}`));
}

describe('tenant filters', () => {
  it('are written only in server/db/repositories and the stores beside connectors', () => {
    expect(handWrittenTenantFilters(process.cwd())).toEqual([]);
  });

  it('notices one written anywhere else', () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'tenancy-'));
    fs.mkdirSync(path.join(root, 'server/services'), { recursive: true });
    fs.mkdirSync(path.join(root, 'server/db/repositories'), { recursive: true });
    fs.writeFileSync(path.join(root, 'server/db/repositories/ok.ts'), 'db.select().from(t).where(eq(t.tenantId, tenantId));\n');
    fs.mkdirSync(path.join(root, 'server/connectors/crm/store'), { recursive: true });
    fs.writeFileSync(path.join(root, 'server/connectors/crm/store/ok.ts'), 'db.select().from(t).where(eq(t.tenantId, tenantId));\n');
    fs.writeFileSync(path.join(root, 'server/connectors/crm/connector.ts'), 'sql`select 1 from crm_people where tenant_id = ${id}`;\n');
    fs.writeFileSync(path.join(root, 'server/services/bad.ts'), 'db.select().from(formulas).where(eq(formulas.tenantId, id));\nsql`select 1 from records where tenant_id = ${id}`;\n');
    try {
      expect(handWrittenTenantFilters(root)).toEqual([
        'server/connectors/crm/connector.ts:1: sql`select 1 from crm_people where tenant_id = ${id}`;',
        'server/services/bad.ts:1: db.select().from(formulas).where(eq(formulas.tenantId, id));',
        'server/services/bad.ts:2: sql`select 1 from records where tenant_id = ${id}`;',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
