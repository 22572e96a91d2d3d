/**
 * The account-management service (/account-management/v1), with the paths exactly as SPEC.md
 * section 7 writes them. Paths SPEC.md leaves "not shown" are documented in the README.
 */
import { accountManagementService } from '../../src/domain/api/accountManagement.ts';
import { can } from '../../src/domain/roles.ts';
import {
  loginDetails, organizationBySubdomain, resolveActiveTenant, setActiveTenant, tenantAccess, userByAuth0Id,
} from '../db/accounts.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { passwordResetDelivery } from '../identity/resetDelivery.ts';
import { usersService, type UserManager } from '../services/users.ts';
import { requireOwnOrganization, type TokenVerifier } from './auth.ts';
import type { AppEnv, Caller, TenantEnv } from './env.ts';
import type { Context } from 'hono';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function accountManagementRouter(db: Db, verifier: TokenVerifier, config: Pick<Config, 'internalEmailDomain' | 'auth' | 'smtp' | 'auth0Management'>) {
  const { app, on } = contractRouter(db, verifier);
  const api = accountManagementService.endpoints;
  const users = usersService({
    db, internalEmailDomain: config.internalEmailDomain, embeddedIssuer: config.auth.embedded ? config.auth.domain : null,
    resetDelivery: passwordResetDelivery(config),
  });

  // Before sign-in the browser knows only its host name; the organisation id is not a secret.
  on(api.organizationBySubdomain, async (_c, { params }) => {
    const subdomain = params.subdomain.toLowerCase();
    if (!SUBDOMAIN.test(subdomain)) return fail('bad-request', 'A subdomain has letters, digits and dashes only.');
    const org = await organizationBySubdomain(db, subdomain);
    if (!org) return fail('unknown-subdomain');
    return { organizationId: org.id, organizationName: org.name, subdomain };
  });

  // Read on every page load, and never cached: a change of roles, tenants or deactivation takes
  // effect on the next request on every process (DESIGN.md section 4a).
  on(api.currentUser, async (c, { params }) => {
    const caller = c.var.caller;
    requireOwnOrganization(params.orgId, caller);
    const found = await loginDetails(db, caller.userId);
    if (!found) return fail('forbidden');
    if (!found.hasTenant) return fail('no-tenants');
    if (!found.hasRole) return fail('no-roles');
    return found.details;
  });

  /** Tenant data: the user's tenants with their roles; a user's own, or, for a user manager, those of a shared tenant. */
  on(api.tenantData, async (c, { params }) => {
    const caller = c.var.caller;
    requireOwnOrganization(params.orgId, caller);
    const target = await subjectUser(db, caller, params.userId);
    const { access, active } = await visibleTenantAccess(db, caller, target);
    return { userId: target.auth0Id, activeTenantId: active?.tenantId ?? null, tenants: access };
  });

  on(api.activeTenant, async (c, { params }) => {
    const caller = c.var.caller;
    requireOwnOrganization(params.orgId, caller);
    const me = await subjectUser(db, caller, caller.auth0Id);
    const access = await tenantAccess(db, me.id);
    const active = resolveActiveTenant(me.activeTenantId, access);
    return { activeTenantId: active?.tenantId ?? null, tenant: active ? { id: active.tenantId, name: active.name } : null };
  });

  on(api.userActiveTenant, async (c, { params }) => {
    const caller = c.var.caller;
    requireOwnOrganization(params.orgId, caller);
    const target = await subjectUser(db, caller, params.userId);
    const { active } = await visibleTenantAccess(db, caller, target);
    return { activeTenantId: active?.tenantId ?? null, tenant: active ? { id: active.tenantId, name: active.name } : null };
  });

  on(api.setActiveTenant, async (c, { body }) => {
    const caller = c.var.caller;
    const access = await tenantAccess(db, caller.userId);
    const chosen = access.find((t) => t.tenantId === body.tenantId);
    if (!chosen) return fail('no-tenant-access');
    await setActiveTenant(db, caller.userId, body.tenantId);
    return { activeTenantId: body.tenantId, tenant: { id: body.tenantId, name: chosen.name }, roles: chosen.roles, policies: chosen.policies };
  });

  // SPEC.md section 7 calls it on logout; nothing is cached per process, so there is nothing to drop
  on(api.deleteUserCache, async (c, { params }) => {
    await subjectUser(db, c.var.caller, params.userId);
  });

  /** User management: the users of the caller's tenant (server/services/users.ts holds the rules). */
  on(api.users, async (c, { params, query }) => users.list(manager(c, params.orgId), query));
  on(api.user, async (c, { params }) => users.get(manager(c, params.orgId), params.userId));
  on(api.createUser, async (c, { params, body }) => users.create(manager(c, params.orgId), body));
  on(api.updateUser, async (c, { params, body }) => users.update(manager(c, params.orgId), params.userId, body, c.var.log));
  on(api.deactivateUser, async (c, { params }) => users.setActive(manager(c, params.orgId), params.userId, false));
  on(api.reactivateUser, async (c, { params }) => users.setActive(manager(c, params.orgId), params.userId, true));
  on(api.deleteUser, async (c, { params }) => { await users.remove(manager(c, params.orgId), params.userId); });
  on(api.removeUserFromTenant, async (c, { params }) => {
    await users.removeFromTenants(manager(c, params.orgId), params.userId, params.tenantId);
  });
  on(api.removeUserFromAllTenants, async (c, { params }) => { await users.removeFromTenants(manager(c, params.orgId), params.userId); });
  on(api.resetUserPassword, async (c, { params }) => users.resetPassword(manager(c, params.orgId), params.userId, c.var.log));

  return app;
}

function manager(c: Context<AppEnv & TenantEnv>, orgId: string): UserManager {
  const caller = c.var.caller;
  requireOwnOrganization(orgId, caller);
  return {
    userId: caller.userId, name: caller.fullName, organizationId: caller.organizationId, tenantId: c.var.tenant.tenantId,
    correlationId: c.var.correlationId,
  };
}

/** The user a path names: the caller, or, with user-management permission in the caller's tenant, another user of the organisation. */
async function subjectUser(db: Db, caller: Caller, auth0Id: string) {
  const isSelf = auth0Id === caller.auth0Id;
  if (!isSelf && !(caller.tenantId && can(caller.policies, 'usermanagement', 'view'))) {
    return fail('forbidden', 'You may only read your own account.');
  }
  const user = await userByAuth0Id(db, caller.organizationId, auth0Id);
  if (!user) return fail('not-found', 'No such user.');
  // tenants never see each other's people: another user must belong to the caller's tenant
  if (!isSelf && !(await tenantAccess(db, user.id)).some((t) => t.tenantId === caller.tenantId)) {
    return fail('not-found', 'No such user.');
  }
  return user;
}

/**
 * A user's tenants as the caller may see them: for another user only the tenants both belong to
 * (and the active one only when it is among them), so a user manager of one tenant learns nothing
 * of the organisation's other tenants.
 */
async function visibleTenantAccess(db: Db, caller: Caller, target: { id: string; activeTenantId: string | null }) {
  const all = await tenantAccess(db, target.id);
  const active = resolveActiveTenant(target.activeTenantId, all);
  if (target.id === caller.userId) return { access: all, active };
  const mine = new Set((await tenantAccess(db, caller.userId)).map((t) => t.tenantId));
  const access = all.filter((t) => mine.has(t.tenantId));
  return { access, active: active && mine.has(active.tenantId) ? active : undefined };
}
