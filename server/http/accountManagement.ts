/**
 * The account-management service (/account-management/v1), with the paths exactly as SPEC.md
 * section 7 writes them. Paths SPEC.md leaves "not shown" are documented in the README.
 */
import { Hono } from 'hono';
import * as v from 'valibot';
import { can } from '../../src/domain/roles.ts';
import {
  loginDetails, organizationBySubdomain, resolveActiveTenant, setActiveTenant, tenantAccess, userByAuth0Id, usersOfTenant,
} from '../db/accounts.ts';
import type { Db } from '../db/database.ts';
import { authenticate, requireOwnOrganization, requirePolicy, type TokenVerifier } from './auth.ts';
import type { AppEnv, Caller } from './env.ts';
import { fail } from './problem.ts';
import { jsonBody } from './validation.ts';

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const CACHE_TTL_MS = 60_000;

export const ActiveTenantBody = v.object({ tenantId: v.pipe(v.string(), v.uuid('tenantId must be a tenant id.')) });

export function accountManagementRouter(db: Db, verifier: TokenVerifier) {
  /** login details are read on every page load; DELETE user-cache (on logout) and a tenant switch drop them */
  const cache = new Map<string, { at: number; value: Awaited<ReturnType<typeof loginDetails>> }>();
  const cachedDetails = async (userId: string) => {
    const hit = cache.get(userId);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.value;
    const value = await loginDetails(db, userId);
    cache.set(userId, { at: Date.now(), value });
    return value;
  };

  const app = new Hono<AppEnv>();

  // Before sign-in the browser knows only its host name; the organisation id is not a secret.
  app.get('/authentication/organization/subdomain/:subdomain', async (c) => {
    const subdomain = c.req.param('subdomain').toLowerCase();
    if (!SUBDOMAIN.test(subdomain)) return fail(400, 'bad-request', 'A subdomain has letters, digits and dashes only.');
    const org = await organizationBySubdomain(db, subdomain);
    if (!org) return fail(404, 'unknown-subdomain');
    return c.json({ organizationId: org.id, organizationName: org.name, subdomain });
  });

  app.use('*', authenticate(db, verifier));

  app.get('/User/organization/:orgId/user', async (c) => {
    const caller = c.var.caller;
    requireOwnOrganization(c.req.param('orgId'), caller);
    const found = await cachedDetails(caller.userId);
    if (!found) return fail(403, 'forbidden');
    if (!found.hasTenant) return fail(404, 'no-tenants');
    if (!found.hasRole) return fail(403, 'no-roles');
    return c.json(found.details);
  });

  /** Tenant data: the user's tenants with their roles; a user's own, or anyone's for a user manager. */
  app.get('/Tenant/organization/:orgId/user/:userId', async (c) => {
    const caller = c.var.caller;
    requireOwnOrganization(c.req.param('orgId'), caller);
    const target = await subjectUser(db, caller, c.req.param('userId'));
    const access = await tenantAccess(db, target.id);
    const active = resolveActiveTenant(target.activeTenantId, access);
    return c.json({ userId: target.auth0Id, activeTenantId: active?.tenantId ?? null, tenants: access });
  });

  const activeTenant = async (userId: string, saved: string | null) => {
    const access = await tenantAccess(db, userId);
    const active = resolveActiveTenant(saved, access);
    return { activeTenantId: active?.tenantId ?? null, tenant: active ? { id: active.tenantId, name: active.name } : null };
  };

  app.get('/user/organization/:orgId/user/active-tenant', async (c) => {
    const caller = c.var.caller;
    requireOwnOrganization(c.req.param('orgId'), caller);
    const me = await subjectUser(db, caller, caller.auth0Id);
    return c.json(await activeTenant(me.id, me.activeTenantId));
  });

  app.get('/user/organization/:orgId/users/:userId/active-tenant', async (c) => {
    const caller = c.var.caller;
    requireOwnOrganization(c.req.param('orgId'), caller);
    const target = await subjectUser(db, caller, c.req.param('userId'));
    return c.json(await activeTenant(target.id, target.activeTenantId));
  });

  app.patch('/user/active-tenant', jsonBody(ActiveTenantBody), async (c) => {
    const caller = c.var.caller;
    const { tenantId } = c.req.valid('json');
    const access = await tenantAccess(db, caller.userId);
    const chosen = access.find((t) => t.tenantId === tenantId);
    if (!chosen) return fail(403, 'no-tenant-access');
    await setActiveTenant(db, caller.userId, tenantId);
    cache.delete(caller.userId);
    return c.json({ activeTenantId: tenantId, tenant: { id: tenantId, name: chosen.name }, roles: chosen.roles, policies: chosen.policies });
  });

  app.delete('/user/user-cache/:userId', async (c) => {
    const caller = c.var.caller;
    const target = await subjectUser(db, caller, c.req.param('userId'));
    cache.delete(target.id);
    return c.body(null, 204);
  });

  /** Users of the caller's tenant (the user-management screen builds on it). */
  app.get('/user/organization/:orgId/users', requirePolicy('usermanagement', 'view'), async (c) => {
    const caller = c.var.caller;
    requireOwnOrganization(c.req.param('orgId'), caller);
    return c.json({ users: await usersOfTenant(db, caller.tenantId!) });
  });

  return app;
}

/** The user a path names: the caller, or, with user-management permission in the caller's tenant, another user of the organisation. */
async function subjectUser(db: Db, caller: Caller, auth0Id: string) {
  const isSelf = auth0Id === caller.auth0Id;
  if (!isSelf && !(caller.tenantId && can(caller.policies, 'usermanagement', 'view'))) {
    return fail(403, 'forbidden', 'You may only read your own account.');
  }
  const user = await userByAuth0Id(db, caller.organizationId, auth0Id);
  if (!user) return fail(404, 'not-found', 'No such user.');
  // tenants never see each other's people: another user must belong to the caller's tenant
  if (!isSelf && !(await tenantAccess(db, user.id)).some((t) => t.tenantId === caller.tenantId)) {
    return fail(404, 'not-found', 'No such user.');
  }
  return user;
}
