/**
 * Accounts (SPEC.md section 7): the organisation behind a subdomain, the login details read on
 * every page load, a user's tenants and the active one. Who may read whose account is decided
 * here; server/http/accountManagement.ts only parses and answers.
 *
 * Nothing is cached: a change of roles, tenants or deactivation takes effect on the next request
 * on every process (DESIGN.md section 4a).
 */
import { DomainError, type ProblemTitle } from '../../src/domain/errors.ts';
import { can, type Policies } from '../../src/domain/roles.ts';
import {
  loginDetails, organizationBySubdomain, ownerNoticesOf, resolveActiveTenant, setActiveTenant, setOwnerNotices, tenantAccess, userByAuth0Id,
} from '../db/accounts.ts';
import type { Db } from '../db/database.ts';

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The signed-in caller, as far as account rules need it. */
export interface AccountCaller {
  /** users.id */
  userId: string;
  /** the token's subject */
  auth0Id: string;
  organizationId: string;
  /** the tenant the request named, when the caller may use it */
  tenantId: string | null;
  policies: Policies;
}

const fail = (title: ProblemTitle, detail?: string): never => {
  throw new DomainError(title, detail);
};

export function accountsService(deps: { db: Db }) {
  const { db } = deps;

  /** The user a path names: the caller, or, with user-management permission in the caller's tenant, another user of the organisation. */
  async function subjectUser(caller: AccountCaller, auth0Id: string) {
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
  async function visibleTenantAccess(caller: AccountCaller, target: { id: string; activeTenantId: string | null }) {
    const all = await tenantAccess(db, target.id);
    const active = resolveActiveTenant(target.activeTenantId, all);
    if (target.id === caller.userId) return { access: all, active };
    const mine = new Set((await tenantAccess(db, caller.userId)).map((t) => t.tenantId));
    const access = all.filter((t) => mine.has(t.tenantId));
    return { access, active: active && mine.has(active.tenantId) ? active : undefined };
  }

  const activeTenantView = (active: { tenantId: string; name: string } | undefined) =>
    ({ activeTenantId: active?.tenantId ?? null, tenant: active ? { id: active.tenantId, name: active.name } : null });

  return {
    /** Before sign-in the browser knows only its host name; the organisation id is not a secret. */
    async organizationBySubdomain(name: string) {
      const subdomain = name.toLowerCase();
      if (!SUBDOMAIN.test(subdomain)) return fail('bad-request', 'A subdomain has letters, digits and dashes only.');
      const org = await organizationBySubdomain(db, subdomain);
      if (!org) return fail('unknown-subdomain');
      return { organizationId: org.id, organizationName: org.name, subdomain };
    },

    /** The login details: read on every page load, and never cached. */
    async currentUser(caller: Pick<AccountCaller, 'userId'>) {
      const found = await loginDetails(db, caller.userId);
      if (!found) return fail('forbidden');
      if (!found.hasTenant) return fail('no-tenants');
      if (!found.hasRole) return fail('no-roles');
      return found.details;
    },

    /** A user's tenants with their roles: a user's own, or, for a user manager, those of a shared tenant. */
    async tenantData(caller: AccountCaller, auth0Id: string) {
      const target = await subjectUser(caller, auth0Id);
      const { access, active } = await visibleTenantAccess(caller, target);
      return { userId: target.auth0Id, activeTenantId: active?.tenantId ?? null, tenants: access };
    },

    async activeTenant(caller: AccountCaller) {
      const me = await subjectUser(caller, caller.auth0Id);
      return activeTenantView(resolveActiveTenant(me.activeTenantId, await tenantAccess(db, me.id)));
    },

    async userActiveTenant(caller: AccountCaller, auth0Id: string) {
      const target = await subjectUser(caller, auth0Id);
      return activeTenantView((await visibleTenantAccess(caller, target)).active);
    },

    /** Chooses the caller's active tenant among those the caller belongs to. */
    async setActiveTenant(caller: Pick<AccountCaller, 'userId'>, tenantId: string) {
      const access = await tenantAccess(db, caller.userId);
      const chosen = access.find((t) => t.tenantId === tenantId);
      if (!chosen) return fail('no-tenant-access');
      await setActiveTenant(db, caller.userId, tenantId);
      return { activeTenantId: tenantId, tenant: { id: tenantId, name: chosen.name }, roles: chosen.roles, policies: chosen.policies };
    },

    /** Whether the caller is e-mailed about what they own (server/services/ownerNotices.ts). */
    async ownerNotices(caller: Pick<AccountCaller, 'userId'>) {
      return { ownerNotices: await ownerNoticesOf(db, caller.userId) };
    },

    async setOwnerNotices(caller: Pick<AccountCaller, 'userId'>, ownerNotices: boolean) {
      await setOwnerNotices(db, caller.userId, ownerNotices);
      return { ownerNotices };
    },

    /** SPEC.md section 7 calls it on logout; nothing is cached per process, so it only checks the caller may name that user. */
    async deleteUserCache(caller: AccountCaller, auth0Id: string): Promise<void> {
      await subjectUser(caller, auth0Id);
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
