/**
 * The account-management service (/account-management/v1), with the paths exactly as SPEC.md
 * section 7 writes them. Paths SPEC.md leaves "not shown" are documented in the README.
 */
import { accountManagementService } from '../../src/domain/api/accountManagement.ts';
import type { AccountCaller, AccountsService } from '../services/accounts.ts';
import type { UserManager, UsersService } from '../services/users.ts';
import { requireOwnOrganization, type Auth } from './auth.ts';
import type { AppEnv, Caller, TenantEnv } from './env.ts';
import type { Context } from 'hono';
import { contractRouter } from './routes.ts';

export function accountManagementRouter(services: { accounts: AccountsService; users: UsersService }, auth: Auth) {
  const { app, on } = contractRouter(auth);
  const api = accountManagementService.endpoints;
  const { accounts, users } = services;
  /** the caller, after checking the path names the caller's organisation */
  const own = (caller: Caller, orgId: string): AccountCaller => {
    requireOwnOrganization(orgId, caller);
    return caller;
  };

  on(api.organizationBySubdomain, async (_c, { params }) => accounts.organizationBySubdomain(params.subdomain));
  on(api.currentUser, async (c, { params }) => accounts.currentUser(own(c.var.caller, params.orgId)));
  on(api.tenantData, async (c, { params }) => accounts.tenantData(own(c.var.caller, params.orgId), params.userId));
  on(api.activeTenant, async (c, { params }) => accounts.activeTenant(own(c.var.caller, params.orgId)));
  on(api.userActiveTenant, async (c, { params }) => accounts.userActiveTenant(own(c.var.caller, params.orgId), params.userId));
  on(api.ownerNotices, async (c, { params }) => accounts.ownerNotices(own(c.var.caller, params.orgId)));
  on(api.setOwnerNotices, async (c, { params, body }) => accounts.setOwnerNotices(own(c.var.caller, params.orgId), body.ownerNotices));
  on(api.setActiveTenant, async (c, { body }) => accounts.setActiveTenant(c.var.caller, body.tenantId));
  on(api.deleteUserCache, async (c, { params }) => { await accounts.deleteUserCache(c.var.caller, params.userId); });

  /** User management: the users of the caller's tenant (server/services/users.ts holds the rules). */
  on(api.users, async (c, { params, query }) => users.list(manager(c, params.orgId), query));
  on(api.user, async (c, { params }) => users.get(manager(c, params.orgId), params.userId));
  on(api.createUser, async (c, { params, body }) => users.create(manager(c, params.orgId), body, c.var.log));
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
