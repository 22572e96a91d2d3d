/**
 * The demo organisation, seeded on first start: two tenants, one user per role, and the two edge
 * cases. What a tenant holds in a system kept beside its connector (the Sandbox CRM's demo data:
 * server/connectors/sandboxCrm/seed.ts) is handed in by the caller, since this layer knows no connector.
 */
import { eq } from 'drizzle-orm';
import type { Role } from '../../src/domain/roles.ts';
import { hashPassword } from '../identity/passwords.ts';
import type { Db } from './database.ts';
import type { Executor } from './tenancy.ts';
import { memberships, organizations, tenants, users } from './schema/accounts.ts';
import { seedFlags } from './seedFlags.ts';

export const DEMO_SUBDOMAIN = 'demo';
export const DEMO_PASSWORD = 'Tributary-demo-2026';
export const DEMO_TENANTS = ['Riverside Food Bank', 'Riverside Youth Arts'] as const;

export interface DemoUser {
  email: string;
  fullName: string;
  /** roles in each tenant, by tenant index; an empty list means a membership without roles */
  roles: Partial<Record<0 | 1, Role[]>>;
}

export const DEMO_USERS: DemoUser[] = [
  { email: 'administrator@demo.tributary.test', fullName: 'Ada Administrator', roles: { 0: ['Administrator'], 1: ['Administrator'] } },
  { email: 'power.user@demo.tributary.test', fullName: 'Pat Power', roles: { 0: ['Power User'], 1: ['View Only'] } },
  { email: 'connection.manager@demo.tributary.test', fullName: 'Connie Connections', roles: { 0: ['Connection Manager'] } },
  { email: 'formula.producer@demo.tributary.test', fullName: 'Fran Formula', roles: { 0: ['Formula Producer'] } },
  { email: 'data.processor@demo.tributary.test', fullName: 'Dana Processor', roles: { 0: ['Data Processor'] } },
  { email: 'user.manager@demo.tributary.test', fullName: 'Uma Manager', roles: { 0: ['User Manager'] } },
  { email: 'view.only@demo.tributary.test', fullName: 'Vic Viewer', roles: { 0: ['View Only'] } },
  { email: 'no.roles@demo.tributary.test', fullName: 'Nora Noroles', roles: { 0: [] } },
  { email: 'no.tenants@demo.tributary.test', fullName: 'Tess Notenant', roles: {} },
];

export async function demoOrganizationExists(db: Db): Promise<boolean> {
  const existing = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.subdomain, DEMO_SUBDOMAIN)).limit(1);
  return existing.length > 0;
}

/** Seeds what new tenants hold beyond accounts and flags, in the demo's transaction: all or nothing. */
export type SeedTenants = (tx: Executor, tenantIds: string[]) => Promise<void>;

/** Seeds once; returns false when the demo organisation already exists (a second start keeps all data). */
export async function seedDemo(db: Db, seedTenants: SeedTenants): Promise<boolean> {
  if (await demoOrganizationExists(db)) return false;
  // one hash for the shared (public) demo password: each costs a third of a second at today's scrypt cost
  const hash = await hashPassword(DEMO_PASSWORD);
  return db.transaction(async (tx) => {
    const [org] = await tx.insert(organizations).values({
      name: 'Riverside Community Trust',
      subdomain: DEMO_SUBDOMAIN,
      salesforceAccountId: '0015g00000DemoAAA',
      skuTopLevelProduct: 'Tributary',
      skuSubProduct: 'Nonprofit Standard',
      skuConnectorDetail: ['renxt', 'salesforce', 'mailchimp', 'stripe', 'hubspot', 'sftp', 'http', 'file-upload', 'flat-file'],
    }).onConflictDoNothing().returning();
    if (!org) return false; // another process seeded it first
    // each tenant gets its built-in 'File upload' data source as it is made (the trigger of migration 0025)
    const ts = await tx.insert(tenants).values(DEMO_TENANTS.map((name) => ({ organizationId: org.id, name }))).returning();
    await seedTenants(tx, ts.map((t) => t.id));
    for (const u of DEMO_USERS) {
      const id = crypto.randomUUID();
      await tx.insert(users).values({
        id, organizationId: org.id, auth0Id: `auth0|${id}`, email: u.email, fullName: u.fullName, passwordHash: hash,
      });
      for (const [idx, roles] of Object.entries(u.roles)) {
        await tx.insert(memberships).values({ userId: id, tenantId: ts[Number(idx)]!.id, roles: roles ?? [] });
      }
    }
    await seedFlags(tx, ts.map((t) => t.id));
    return true;
  });
}
