/**
 * User management (SPEC.md sections 5 and 6): a user manager adds, edits, deactivates, reactivates
 * users and resets their passwords, only in the tenants they manage; an Administrator also deletes
 * them. Another tenant's user is not found. No role grants more than its holder has: a caller gives
 * only roles they hold in that tenant (src/domain/users.ts, membershipChangeRefusal), never changes
 * their own memberships, and only an Administrator changes an Administrator. A password reset,
 * deactivation or removal from a tenant ends the user's sessions at once. Every change is an
 * activity event in each tenant it touches.
 */
import { randomUUID } from 'node:crypto';
import type { UserInvitation, UserListItem, UsersQuery } from '../../src/domain/api/accountManagement.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { can, effectiveRoles, grantableRoles, type Action, type Role } from '../../src/domain/roles.ts';
import { GRANT_MESSAGES, isInternalEmail, membershipChangeRefusal, type MembershipInput, type MembershipState } from '../../src/domain/users.ts';
import {
  deleteUserRow, emailTaken, emailTakenInOrganization, insertUser, membershipsOf, removeMemberships, replaceMemberships, tenantAccess, updateUserRow,
  userByAuth0Id, usersOfTenant, type UserRow,
} from '../db/accounts.ts';
import type { Db } from '../db/database.ts';
import { forTenant, type Executor } from '../db/tenancy.ts';
import { createEmailConfirmationLink, createResetLink } from '../identity/passwordReset.ts';
import { endSessions } from '../identity/sessions.ts';
import { embeddedToLog, type PasswordResetDeliverer, type ResetLog } from '../identity/resetDelivery.ts';
import { recordEvent } from './events.ts';

export interface UserManager {
  userId: string;
  name: string;
  organizationId: string;
  /** the tenant the request named: its users are the ones visible */
  tenantId: string;
  correlationId: string;
}

export interface UsersDeps {
  db: Db;
  internalEmailDomain: string | null;
  /** the embedded provider's origin; null when an external provider holds passwords */
  embeddedIssuer: string | null;
  /** how reset links reach users (server/identity/resetDelivery.ts); the server log when not given */
  resetDelivery?: PasswordResetDeliverer;
}

type Membership = Awaited<ReturnType<typeof membershipsOf>>[number];

/**
 * The address user management shows: the sign-in e-mail, or, while the address the user was
 * created with is another organisation's account's, that address (it looks no different).
 */
const addressOf = (user: UserRow) => user.email ?? user.pendingEmail ?? '';

export function usersService(deps: UsersDeps) {
  const { db } = deps;

  /** Tenants where the caller may do this to users (unexpired memberships only), with the caller's roles there. */
  async function managed(me: UserManager, action: Action): Promise<Map<string, Role[]>> {
    const access = await tenantAccess(db, me.userId);
    return new Map(access.filter((t) => can(t.policies, 'usermanagement', action)).map((t) => [t.tenantId, t.roles]));
  }

  const stateOf = (m: Membership | undefined): MembershipState | null => (m ? { roles: m.roles, accessExpiresOn: m.expires } : null);
  const stateOfInput = (m: MembershipInput | undefined): MembershipState | null => (m ? { roles: m.roles, accessExpiresOn: m.accessExpiresOn ?? null } : null);

  /** Each tenant's change of membership must be one the caller may make there (a 403 that says why). */
  function requireGrants(mine: Map<string, Role[]>, self: boolean, changes: { tenantId: string; before: MembershipState | null; after: MembershipState | null }[]) {
    for (const change of changes) {
      const why = membershipChangeRefusal({ callerRoles: mine.get(change.tenantId) ?? [], self, before: change.before, after: change.after });
      if (why) throw new DomainError('forbidden', why);
    }
  }

  /** An Administrator's account (name, e-mail, password, deactivation, deletion) is changed only by an Administrator of each of their tenants. */
  function requireNotOverAdministrator(all: Membership[], mine: Map<string, Role[]>) {
    const over = all.some((m) => m.roles.includes('Administrator') && !(mine.get(m.tenantId) ?? []).includes('Administrator'));
    if (over) throw new DomainError('forbidden', GRANT_MESSAGES.administratorAccount);
  }

  function view(user: UserRow, all: Membership[], tenantId: string, visible: Map<string, unknown>): UserListItem {
    const here = all.find((m) => m.userId === user.id && m.tenantId === tenantId);
    return {
      auth0Id: user.auth0Id, fullName: user.fullName, email: addressOf(user), pendingEmail: user.email ? user.pendingEmail : null,
      roles: effectiveRoles(here?.roles ?? []), accessExpiresOn: here?.expires?.toISOString() ?? null,
      active: user.deactivatedOn === null, internal: isInternalEmail(addressOf(user), deps.internalEmailDomain),
      tenants: all.filter((m) => m.userId === user.id && visible.has(m.tenantId)).map((m) => ({
        tenantId: m.tenantId, name: m.name, roles: effectiveRoles(m.roles), accessExpiresOn: m.expires?.toISOString() ?? null,
      })),
    };
  }

  /** A user of the caller's tenant (expired members included); anyone else is not found. */
  async function target(me: UserManager, auth0Id: string) {
    const user = await userByAuth0Id(db, me.organizationId, auth0Id);
    const all = user ? await membershipsOf(db, [user.id]) : [];
    if (!user || !all.some((m) => m.tenantId === me.tenantId)) throw new DomainError('not-found', 'No such user.');
    return { user, all };
  }

  async function present(me: UserManager, auth0Id: string) {
    const { user, all } = await target(me, auth0Id);
    return { user: view(user, all, me.tenantId, await managed(me, 'view')) };
  }

  /** Account-wide changes need every tenant of the user to be one the caller manages. */
  function requireAllManaged(all: Membership[], mine: Map<string, unknown>, title: 'user-not-updated' | 'user-not-deleted' | 'password-not-reset') {
    if (!all.every((m) => mine.has(m.tenantId))) throw new DomainError(title, 'The user also belongs to tenants you do not manage.');
  }

  function requireManaged(memberships: MembershipInput[], mine: Map<string, unknown>) {
    if (!memberships.every((m) => mine.has(m.tenantId))) throw new DomainError('no-tenant-access', 'You can only give access to tenants you manage.');
  }

  async function events(tx: Executor, me: UserManager, tenantIds: Iterable<string>, type: string, description: string, details: Record<string, unknown>) {
    for (const tenantId of new Set(tenantIds)) {
      await recordEvent(forTenant(tx, tenantId), { actor: { userId: me.userId, name: me.name }, type, description, details, correlationId: me.correlationId });
    }
  }

  const toRows = (ms: MembershipInput[]) => ms.map((m) => ({
    tenantId: m.tenantId, roles: [...m.roles] as string[], accessExpiresOn: m.accessExpiresOn ? new Date(m.accessExpiresOn) : null,
  }));
  const summary = (ms: MembershipInput[]) => ms.map((m) => ({ tenantId: m.tenantId, roles: m.roles, accessExpiresOn: m.accessExpiresOn ?? null }));

  /**
   * A new user's link to choose a first password, sent the way reset links go. The user exists
   * whatever happens to the mail: a failure is said, and a password reset sends another link.
   */
  async function invite(me: UserManager, user: UserRow, email: string, log: ResetLog): Promise<UserInvitation> {
    if (!deps.embeddedIssuer) return 'identity-provider';
    try {
      return await (deps.resetDelivery ?? embeddedToLog()).deliverInvitation({
        to: { auth0Id: user.auth0Id, email, fullName: user.fullName }, invitedBy: me.name,
        embeddedLink: () => createResetLink(db, user.id, deps.embeddedIssuer!),
        log,
      });
    } catch (err) {
      log.info({ user: user.auth0Id, email, reason: (err as Error).message }, 'the invitation could not be sent');
      return 'not-sent';
    }
  }

  return {
    async list(me: UserManager, query: UsersQuery) {
      const { total, rows } = await usersOfTenant(db, me.tenantId, { q: query.q, offset: (query.page - 1) * query.pageSize, limit: query.pageSize });
      const all = await membershipsOf(db, rows.map((r) => r.user.id));
      const visible = await managed(me, 'view');
      return { users: rows.map((r) => view(r.user, all, me.tenantId, visible)), total, page: query.page, pageSize: query.pageSize };
    },

    get: present,

    async create(me: UserManager, input: { fullName: string; email: string; memberships: MembershipInput[] }, log: ResetLog) {
      const mine = await managed(me, 'create');
      requireManaged(input.memberships, mine);
      requireGrants(mine, false, input.memberships.map((m) => ({ tenantId: m.tenantId, before: null, after: stateOfInput(m) })));
      // said only of this organisation's users: whether another organisation has the address is
      // never told, and such a user is made all the same, signing in once the address is free
      if (await emailTakenInOrganization(db, me.organizationId, input.email)) throw new DomainError('user-not-created', 'A user with this e-mail address already exists.');
      const elsewhere = await emailTaken(db, input.email);
      const user = await db.transaction(async (tx) => {
        const row = await insertUser(tx, {
          organizationId: me.organizationId, auth0Id: `auth0|${randomUUID()}`, fullName: input.fullName,
          ...(elsewhere ? { email: null, pendingEmail: input.email } : { email: input.email }),
        });
        await replaceMemberships(tx, row.id, [], toRows(input.memberships));
        await events(tx, me, input.memberships.map((m) => m.tenantId), 'user.created', `${me.name} added ${input.fullName}`,
          { user: row.auth0Id, email: input.email, memberships: summary(input.memberships) });
        return row;
      });
      const invitation = await invite(me, user, input.email, log);
      const all = await membershipsOf(db, [user.id]);
      return { user: view(user, all, me.tenantId, await managed(me, 'view')), invitation };
    },

    async update(me: UserManager, auth0Id: string, input: { fullName: string; email: string; memberships: MembershipInput[] }, log: ResetLog) {
      const { user, all } = await target(me, auth0Id);
      const mine = await managed(me, 'edit');
      requireManaged(input.memberships, mine);
      const touched = [...all.map((m) => m.tenantId).filter((t) => mine.has(t)), ...input.memberships.map((m) => m.tenantId)];
      requireGrants(mine, user.id === me.userId, [...new Set(touched)].map((tenantId) => ({
        tenantId, before: stateOf(all.find((m) => m.tenantId === tenantId)), after: stateOfInput(input.memberships.find((m) => m.tenantId === tenantId)),
      })));
      const renamed = input.fullName !== user.fullName;
      const newEmail = input.email.toLowerCase() !== addressOf(user).toLowerCase() && input.email.toLowerCase() !== user.pendingEmail?.toLowerCase()
        ? input.email : null;
      // name and e-mail are the account's, in every tenant: the caller must manage each of them
      if (renamed || newEmail) {
        requireAllManaged(all, mine, 'user-not-updated');
        requireNotOverAdministrator(all, mine);
      }
      if (newEmail) {
        // whoever controls the sign-in e-mail can take the account over (a password reset goes
        // there): only someone who could give each of its roles may point it elsewhere
        for (const m of all) {
          const missing = m.roles.find((r) => !grantableRoles(mine.get(m.tenantId) ?? []).includes(r as Role));
          if (missing) throw new DomainError('forbidden', GRANT_MESSAGES.coverEmail(missing));
        }
        // another organisation's address is refused only when its confirmation is tried, so this answer tells nothing of it
        if (await emailTakenInOrganization(db, me.organizationId, newEmail, user.id)) throw new DomainError('user-not-updated', 'A user with this e-mail address already exists.');
        if (!deps.embeddedIssuer) throw new DomainError('user-not-updated', 'Sign-in e-mails are kept by the identity provider: change the address there.');
        // the address becomes the sign-in name only once its owner opens the link sent to it
        await (deps.resetDelivery ?? embeddedToLog()).deliverEmailConfirmation({
          to: { auth0Id: user.auth0Id, email: newEmail, fullName: input.fullName },
          embeddedLink: () => createEmailConfirmationLink(db, user.id, newEmail, deps.embeddedIssuer!),
          log,
        });
      }
      await db.transaction(async (tx) => {
        await updateUserRow(tx, user.id, { fullName: input.fullName, ...(newEmail ? { pendingEmail: newEmail } : {}) });
        await replaceMemberships(tx, user.id, [...mine.keys()], toRows(input.memberships));
        await events(tx, me, touched, 'user.updated', `${me.name} updated ${input.fullName}`,
          { user: user.auth0Id, email: addressOf(user), ...(newEmail ? { newEmail } : {}), memberships: summary(input.memberships) });
      });
      return present(me, auth0Id);
    },

    async setActive(me: UserManager, auth0Id: string, active: boolean) {
      const { user, all } = await target(me, auth0Id);
      if (user.id === me.userId) throw new DomainError('user-not-updated', 'You cannot deactivate yourself.');
      const mine = await managed(me, 'edit');
      requireAllManaged(all, mine, 'user-not-updated');
      requireNotOverAdministrator(all, mine);
      if ((user.deactivatedOn === null) !== active) {
        await db.transaction(async (tx) => {
          await updateUserRow(tx, user.id, { deactivatedOn: active ? null : new Date() });
          if (!active) await endSessions(tx, user.id);
          await events(tx, me, all.map((m) => m.tenantId), active ? 'user.reactivated' : 'user.deactivated',
            `${me.name} ${active ? 'reactivated' : 'deactivated'} ${user.fullName}`, { user: user.auth0Id, email: addressOf(user) });
        });
      }
      return present(me, auth0Id);
    },

    async remove(me: UserManager, auth0Id: string) {
      const { user, all } = await target(me, auth0Id);
      if (user.id === me.userId) throw new DomainError('user-not-deleted', 'You cannot delete yourself.');
      const mine = await managed(me, 'delete');
      requireAllManaged(all, mine, 'user-not-deleted');
      requireNotOverAdministrator(all, mine);
      try {
        await db.transaction(async (tx) => {
          // recorded first: the events keep the name, and their actor link is cleared by the delete
          await events(tx, me, all.map((m) => m.tenantId), 'user.deleted', `${me.name} deleted ${user.fullName}`, { user: user.auth0Id, email: addressOf(user) });
          await deleteUserRow(tx, user.id);
        });
      } catch (err) {
        // rows that must keep their author (uploaded files) hold the user
        if ((err as { code?: string }).code === '23503' || (err as { cause?: { code?: string } }).cause?.code === '23503') {
          throw new DomainError('user-not-deleted', 'The user has uploaded files; deactivate the user instead.');
        }
        throw err;
      }
    },

    /** From one tenant the caller manages, or (tenantId undefined) from all of them. */
    async removeFromTenants(me: UserManager, auth0Id: string, tenantId?: string) {
      const { user, all } = await target(me, auth0Id);
      const mine = await managed(me, 'edit');
      if (tenantId !== undefined && !mine.has(tenantId)) throw new DomainError('no-tenant-access', 'You can only remove users from tenants you manage.');
      const from = all.map((m) => m.tenantId).filter((t) => mine.has(t) && (tenantId === undefined || t === tenantId));
      if (tenantId !== undefined && from.length === 0) throw new DomainError('not-found', 'The user does not belong to this tenant.');
      requireGrants(mine, user.id === me.userId, from.map((t) => ({ tenantId: t, before: stateOf(all.find((m) => m.tenantId === t)), after: null })));
      await db.transaction(async (tx) => {
        await removeMemberships(tx, user.id, from);
        await endSessions(tx, user.id);
        await events(tx, me, from, 'user.removed', `${me.name} removed ${user.fullName} from ${from.length === 1 ? 'this tenant' : 'the tenants'}`,
          { user: user.auth0Id, email: addressOf(user), tenants: from });
      });
    },

    async resetPassword(me: UserManager, auth0Id: string, log: ResetLog) {
      const { user, all } = await target(me, auth0Id);
      if (!deps.embeddedIssuer && !deps.resetDelivery) throw new DomainError('password-not-reset', 'Passwords are kept by the identity provider; reset it there.');
      if (user.deactivatedOn) throw new DomainError('password-not-reset', 'The user is deactivated.');
      const mine = await managed(me, 'edit');
      requireAllManaged(all, mine, 'password-not-reset');
      requireNotOverAdministrator(all, mine);
      // An undelivered link is harmless: its token exists only in the message that failed, and it
      // expires in a day. The event is written only once the link is on its way.
      const delivery = await (deps.resetDelivery ?? embeddedToLog()).deliverPasswordReset({
        to: { auth0Id: user.auth0Id, email: addressOf(user), fullName: user.fullName },
        embeddedLink: () => createResetLink(db, user.id, deps.embeddedIssuer!),
        log,
      });
      await db.transaction(async (tx) => {
        // a reset is asked for when a password may be known to someone else: their sessions end now
        await endSessions(tx, user.id);
        await events(tx, me, all.map((m) => m.tenantId), 'user.password.reset', `${me.name} reset the password of ${user.fullName}`,
          { user: user.auth0Id, email: addressOf(user), delivery });
      });
      return { delivery };
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;
