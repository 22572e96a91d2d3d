/** Reads and writes of organisations, tenants, users and memberships. */
import { and, asc, eq, ilike, inArray, ne, or, sql } from 'drizzle-orm';
import { isAccessExpired, policiesFor, effectiveRoles, ROLE_POLICIES, type Policies, type Role } from '../../src/domain/roles.ts';
import type { Db } from './database.ts';
import type { Executor } from './tenancy.ts';
import { memberships, organizations, tenants, users } from './schema/accounts.ts';

/** Why a sign-in or a request is refused: the same words at the sign-in page and from the API. */
// the browser says it too, when a session a deactivated user still holds is refused
export { ACCOUNT_DEACTIVATED } from '../../src/domain/identity.ts';
export const accessEnded = (expiredOn: Date, where: 'this tenant' | 'Tributary') =>
  `Your temporary access to ${where} ended on ${expiredOn.toISOString().slice(0, 10)}. Please contact your administrator.`;

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
      // a user whose address is not yet theirs cannot sign in, so never asks
      email: user.email ?? '',
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

/** A page of one tenant's members by full name; `q` matches name or e-mail, any case. */
export async function usersOfTenant(db: Db, tenantId: string, page: { q?: string; offset: number; limit: number }) {
  const like = page.q ? `%${page.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : undefined;
  const where = and(eq(memberships.tenantId, tenantId), like ? or(ilike(users.fullName, like), ilike(sql`coalesce(${users.email}, ${users.pendingEmail})`, like)) : undefined);
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(where);
  const rows = await db.select({ user: users, roles: memberships.roles, expires: memberships.accessExpiresOn })
    .from(memberships).innerJoin(users, eq(users.id, memberships.userId))
    .where(where).orderBy(asc(users.fullName), asc(users.id)).offset(page.offset).limit(page.limit);
  return { total: count?.n ?? 0, rows };
}

export type UserRow = typeof users.$inferSelect;

/** Every membership of these users, expired ones included (user management shows and edits them). */
export async function membershipsOf(db: Executor, userIds: string[]) {
  if (userIds.length === 0) return [];
  return db.select({ userId: memberships.userId, tenantId: tenants.id, name: tenants.name, roles: memberships.roles, expires: memberships.accessExpiresOn })
    .from(memberships).innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(inArray(memberships.userId, userIds)).orderBy(asc(tenants.name));
}

/**
 * Whether the address is a user's of this organisation, as its sign-in e-mail or as the address it
 * was created with: what user management may say. Another organisation's users are never told of.
 */
export async function emailTakenInOrganization(db: Executor, organizationId: string, email: string, exceptUserId?: string): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users)
    .where(and(
      eq(users.organizationId, organizationId),
      sql`lower(coalesce(${users.email}, ${users.pendingEmail})) = lower(${email})`,
      exceptUserId ? ne(users.id, exceptUserId) : undefined,
    )).limit(1);
  return rows.length > 0;
}

/** Whether the address is any account's sign-in e-mail (they are unique across organisations). */
export async function emailTaken(db: Executor, email: string, exceptUserId?: string): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users)
    .where(and(sql`lower(${users.email}) = lower(${email})`, exceptUserId ? ne(users.id, exceptUserId) : undefined)).limit(1);
  return rows.length > 0;
}

export async function insertUser(db: Executor, u: { organizationId: string; auth0Id: string; email: string | null; pendingEmail?: string; fullName: string }): Promise<UserRow> {
  const [row] = await db.insert(users).values(u).returning();
  return row!;
}

/** Whether the user is e-mailed about the formulas and data sources they made. */
export async function ownerNoticesOf(db: Executor, userId: string): Promise<boolean> {
  const [row] = await db.select({ on: users.ownerNotices }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.on ?? false;
}

export async function setOwnerNotices(db: Executor, userId: string, on: boolean): Promise<void> {
  await db.update(users).set({ ownerNotices: on }).where(eq(users.id, userId));
}

export async function updateUserRow(db: Executor, userId: string, set: Partial<Pick<UserRow, 'email' | 'pendingEmail' | 'fullName' | 'deactivatedOn'>>): Promise<void> {
  await db.update(users).set(set).where(eq(users.id, userId));
}

export async function deleteUserRow(db: Executor, userId: string): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}

/** Replaces a user's memberships in these tenants with the given ones (tenants not named stay as they are). */
export async function replaceMemberships(
  db: Executor, userId: string, inTenants: string[], next: { tenantId: string; roles: string[]; accessExpiresOn: Date | null }[],
): Promise<void> {
  await removeMemberships(db, userId, inTenants);
  if (next.length) await db.insert(memberships).values(next.map((m) => ({ userId, ...m })));
}

export async function removeMemberships(db: Executor, userId: string, inTenants: string[]): Promise<void> {
  if (inTenants.length === 0) return;
  await db.delete(memberships).where(and(eq(memberships.userId, userId), inArray(memberships.tenantId, inTenants)));
}
