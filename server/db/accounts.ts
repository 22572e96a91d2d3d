/** Reads and writes of organisations, tenants, users and memberships. */
import { and, asc, eq, sql } from 'drizzle-orm';
import { isAccessExpired, policiesFor, effectiveRoles, ROLE_POLICIES, type Policies, type Role } from '../../src/domain/roles.ts';
import type { Db } from './database.ts';
import { memberships, organizations, tenants, users } from './schema/accounts.ts';

export async function organizationBySubdomain(db: Db, subdomain: string) {
  const [org] = await db.select({ id: organizations.id, name: organizations.name })
    .from(organizations).where(eq(organizations.subdomain, subdomain)).limit(1);
  return org;
}

export interface TenantAccess {
  tenantId: string;
  name: string;
  roles: Role[];
  policies: Policies;
  accessExpiresOn: string | null;
}

/** The tenants a user may use now: temporary access past its expiry grants nothing. */
export async function tenantAccess(db: Db, userId: string, now = new Date()): Promise<TenantAccess[]> {
  const rows = await db.select({ tenantId: tenants.id, name: tenants.name, roles: memberships.roles, expires: memberships.accessExpiresOn })
    .from(memberships).innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, userId)).orderBy(asc(tenants.name));
  return rows.filter((r) => !isAccessExpired(r.expires, now)).map((r) => ({
    tenantId: r.tenantId,
    name: r.name,
    roles: effectiveRoles(r.roles),
    policies: policiesFor(r.roles),
    accessExpiresOn: r.expires?.toISOString() ?? null,
  }));
}

export async function userByAuth0Id(db: Db, organizationId: string, auth0Id: string) {
  const [u] = await db.select().from(users)
    .where(and(eq(users.organizationId, organizationId), eq(users.auth0Id, auth0Id))).limit(1);
  return u;
}

/** The active tenant is the one saved, while the user may still use it; else the first usable one. */
export function resolveActiveTenant(saved: string | null, access: TenantAccess[]): TenantAccess | undefined {
  return access.find((t) => t.tenantId === saved) ?? access[0];
}

export async function setActiveTenant(db: Db, userId: string, tenantId: string): Promise<void> {
  await db.update(users).set({ activeTenantId: tenantId }).where(eq(users.id, userId));
}

/** The login-details response (SPEC.md section 3, "Current user"). */
export async function loginDetails(db: Db, userId: string) {
  const [row] = await db.select({ user: users, org: organizations }).from(users)
    .innerJoin(organizations, eq(organizations.id, users.organizationId)).where(eq(users.id, userId)).limit(1);
  if (!row) return undefined;
  const { user, org } = row;
  const access = await tenantAccess(db, user.id);
  const active = resolveActiveTenant(user.activeTenantId, access);
  if (active && active.tenantId !== user.activeTenantId) await setActiveTenant(db, user.id, active.tenantId);
  return {
    details: {
      activeTenantId: active?.tenantId ?? null,
      policies: active?.policies ?? {},
      roles: active?.roles ?? [],
      auth0Id: user.auth0Id,
      fullName: user.fullName,
      email: user.email,
      skuConnectorDetail: org.skuConnectorDetail,
      skuSubProduct: org.skuSubProduct,
      skuTopLevelProduct: org.skuTopLevelProduct,
      autoProvisioned: user.autoProvisioned,
      loginCount: user.loginCount,
      createdOn: user.createdOn.toISOString(),
      /** systems the subscription includes */
      datasources: org.skuConnectorDetail,
      /** this tenant's saved connections; filled once connections exist */
      clientDatasources: [] as unknown[],
      policiesDefinitions: ROLE_POLICIES,
      organizationName: org.name,
      salesforceAccountID: org.salesforceAccountId,
      tenants: access.map(({ tenantId, name, roles }) => ({ tenantId, name, roles })),
    },
    hasTenant: access.length > 0,
    hasRole: (active?.roles.length ?? 0) > 0,
  };
}

export async function countUsers(db: Db): Promise<number> {
  const [r] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return r?.n ?? 0;
}

export async function usersOfTenant(db: Db, tenantId: string) {
  const rows = await db.select({ user: users, roles: memberships.roles, expires: memberships.accessExpiresOn })
    .from(memberships).innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.tenantId, tenantId)).orderBy(asc(users.fullName));
  return rows.map(({ user, roles, expires }) => ({
    auth0Id: user.auth0Id,
    fullName: user.fullName,
    email: user.email,
    roles: effectiveRoles(roles),
    accessExpiresOn: expires?.toISOString() ?? null,
    active: user.deactivatedOn === null,
  }));
}
