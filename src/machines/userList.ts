/**
 * The list of User Management (SPEC.md sections 5 and 6): the active tenant's users a page at a
 * time, searched by name or e-mail, and what the caller does to one of them. Adding and editing
 * run the user form (src/machines/userForm.ts) as a child; deleting and removing ask first. A role
 * that may see users but not change them is told so (SPEC.md section 6) instead of acting.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { PasswordResetDelivery, UserInvitation, UserListItem } from '../domain/api/accountManagement.ts';
import { MESSAGES } from '../domain/errors.ts';
import { can, type Action, type Policies } from '../domain/roles.ts';
import { USERS_PAGE_SIZE } from '../domain/users.ts';
import { usersService, type AddedUser, type UsersPage, type UsersService } from '../services/users.ts';
import { userFormMachine, type TenantChoice, type UserFormInput } from './userForm.ts';

export type UserAction = 'deactivate' | 'reactivate' | 'resetPassword' | 'removeHere' | 'removeAll' | 'delete';
/** actions that end the user's sessions or change the account for good: the page asks before these */
export const CONFIRMED_ACTIONS: readonly UserAction[] = ['deactivate', 'resetPassword', 'removeHere', 'removeAll', 'delete'];

export interface Notice { tone: 'done' | 'failed' | 'refused'; title: string; text: string | null }

export interface UserListInput {
  orgId: string;
  /** the account-management calls; the organisation's own when not given */
  service?: UsersService;
  policies: Policies;
  activeTenantId: string | null;
  tenantName: string;
  /** the tenants where the caller may give access */
  tenants: TenantChoice[];
  /** the caller's auth0Id: the form keeps them from changing their own memberships */
  me?: string;
  now?: () => Date;
}

export interface UserListContext extends Omit<UserListInput, 'service'> {
  service: UsersService;
  q: string;
  page: number;
  result: UsersPage | null;
  notice: Notice | null;
  /** the action waiting for confirmation, or under way */
  pending: { action: UserAction; user: UserListItem } | null;
  form: UserFormInput | null;
}

export type UserListEvent =
  | { type: 'search'; q: string }
  | { type: 'page.go'; page: number }
  | { type: 'list.reload' }
  | { type: 'user.add' }
  | { type: 'user.edit'; user: UserListItem }
  | { type: 'user.act'; action: UserAction; user: UserListItem }
  | { type: 'confirm' }
  | { type: 'confirm.cancel' }
  | { type: 'notice.dismiss' };

const NEEDS: Record<UserAction | 'create' | 'edit', Action> = {
  create: 'create', edit: 'edit', deactivate: 'edit', reactivate: 'edit', resetPassword: 'edit', removeHere: 'edit', removeAll: 'edit', delete: 'delete',
};

export const REFUSED: Notice = { tone: 'refused', title: MESSAGES.noEditPermission, text: 'Your role lets you see users, not change them.' };
/** SPEC.md section 6 gives a User Manager add, edit, deactivate and reactivate */
export const DELETE_REFUSED: Notice = { tone: 'refused', title: MESSAGES.noEditPermission, text: 'Deleting a user is for an Administrator; you can deactivate them instead.' };

/** What the page says when an action is done (`output`: the server's answer), and its SPEC.md section 8 message when it fails. */
export function actionMessages(action: UserAction, user: UserListItem, tenantName: string, output?: unknown): { done: string; failed: string } {
  switch (action) {
    case 'deactivate': return { done: `${user.fullName} has been deactivated`, failed: MESSAGES.userNotUpdated };
    case 'reactivate': return { done: `${user.fullName} has been reactivated`, failed: MESSAGES.userNotUpdated };
    case 'resetPassword': return {
      done: resetDone((output as { delivery?: PasswordResetDelivery } | undefined)?.delivery, user),
      failed: MESSAGES.passwordNotReset,
    };
    case 'removeHere': return { done: `${user.fullName} has been removed from ${tenantName}`, failed: MESSAGES.userNotUpdated };
    case 'removeAll': return { done: `${user.fullName} has been removed from all your tenants`, failed: MESSAGES.userNotUpdated };
    case 'delete': return { done: `${user.fullName} has been deleted`, failed: MESSAGES.userNotDeleted };
  }
}

/** What the confirmation of an action says will happen, to whom, and the button that does it. */
export function confirmationOf(action: UserAction, user: UserListItem, tenantName: string): { title: string; text: string; button: string } {
  const name = user.fullName;
  switch (action) {
    case 'deactivate': return {
      title: `Deactivate ${name}?`,
      text: `${name} is signed out at once and can no longer sign in, in any tenant. Their roles, formulas and history stay; you can reactivate them later.`,
      button: 'Deactivate',
    };
    case 'resetPassword': return {
      title: `Reset the password of ${name}?`,
      text: `${name} is signed out at once. A link to choose a new password is e-mailed to ${user.email}, or written to the server log when no mail server is configured; it works once, for a day.`,
      button: 'Reset password',
    };
    case 'removeHere': return { title: `Remove ${name} from ${tenantName}?`, text: `${name} loses their roles in ${tenantName}. Their other tenants stay.`, button: 'Remove' };
    case 'removeAll': return { title: `Remove ${name} from all tenants?`, text: `${name} loses their roles in every tenant you manage.`, button: 'Remove' };
    case 'delete': return {
      title: `Delete ${name}?`,
      text: `${name} will no longer be able to sign in, and their account is deleted. A user who uploaded files cannot be deleted: deactivate them instead.`,
      button: 'Delete user',
    };
    case 'reactivate': return { title: `Reactivate ${name}?`, text: `${name} can sign in again.`, button: 'Reactivate' };
  }
}

/** Where a new user's invitation (a link to choose a password) went, in words. */
export function invitationText(invitation: UserInvitation | undefined, user: UserListItem): string | null {
  switch (invitation) {
    case 'email': return `An invitation with a link to set a password was e-mailed to ${user.email}.`;
    case 'server-log': return `No mail server is configured: the invitation link for ${user.fullName} to set a password is in the server log, for whoever runs Tributary to pass on. It works once, for a day.`;
    case 'not-sent': return `The invitation e-mail could not be sent. Use Reset password to send ${user.fullName} a link to set a password.`;
    case 'identity-provider': return `Passwords are kept by the identity provider: ${user.fullName} sets one there.`;
    default: return null;
  }
}

function resetDone(delivery: PasswordResetDelivery | undefined, user: UserListItem): string {
  if (delivery === 'email') return `A reset link was e-mailed to ${user.email}.`;
  if (delivery === 'auth0') return `Auth0 made a password reset link for ${user.fullName}; it is in the server log, for whoever runs Tributary to pass on. It works once, for a day.`;
  return `A password reset link for ${user.fullName} has been sent to the server log, for whoever runs Tributary to pass on. It works once, for a day.`;
}

function run(service: UsersService, action: UserAction, user: UserListItem, tenantId: string | null): Promise<unknown> {
  const o = { silent: true };
  switch (action) {
    case 'deactivate': return service.deactivate(user.auth0Id, o);
    case 'reactivate': return service.reactivate(user.auth0Id, o);
    case 'resetPassword': return service.resetPassword(user.auth0Id, o);
    case 'removeHere': return service.removeFromTenant(user.auth0Id, tenantId ?? '', o);
    case 'removeAll': return service.removeFromAllTenants(user.auth0Id, o);
    case 'delete': return service.remove(user.auth0Id, o);
  }
}

const detailOf = (error: unknown) => (error as { problem?: { detail?: string } } | null)?.problem?.detail ?? null;

export const userListMachine = setup({
  types: { context: {} as UserListContext, events: {} as UserListEvent, input: {} as UserListInput },
  actors: {
    loadPage: fromPromise<UsersPage, { service: UsersService; q: string; page: number }>(({ input }) =>
      input.service.list({ q: input.q, page: input.page, pageSize: USERS_PAGE_SIZE }, { silent: true })),
    runAction: fromPromise<unknown, { service: UsersService; action: UserAction; user: UserListItem; tenantId: string | null }>(({ input }) =>
      run(input.service, input.action, input.user, input.tenantId)),
    userForm: userFormMachine,
  },
  guards: {
    mayCreate: ({ context }) => can(context.policies, 'usermanagement', NEEDS.create),
    mayEdit: ({ context }) => can(context.policies, 'usermanagement', NEEDS.edit),
    mayNotAct: ({ context }, p: { action: UserAction }) => !can(context.policies, 'usermanagement', NEEDS[p.action]),
    wasSaved: (_, p: { saved: UserListItem | null }) => p.saved !== null,
    asksFirst: (_, p: { action: UserAction }) => CONFIRMED_ACTIONS.includes(p.action),
  },
  actions: {
    refuse: assign({ notice: (_, p?: { action?: UserAction }) => (p?.action === 'delete' ? DELETE_REFUSED : REFUSED) }),
  },
}).createMachine({
  id: 'userList',
  context: ({ input }) => ({ ...input, service: input.service ?? usersService(input.orgId), q: '', page: 1, result: null, notice: null, pending: null, form: null }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => ({ service: context.service, q: context.q, page: context.page }),
        onDone: { target: 'loaded', actions: assign({ result: ({ event }) => event.output }) },
        onError: 'failed',
      },
    },
    failed: { on: { 'list.reload': 'loading' } },
    loaded: {
      on: {
        'search': { target: 'loading', actions: assign({ q: ({ event }) => event.q.trim(), page: 1 }) },
        'page.go': { target: 'loading', actions: assign({ page: ({ event }) => event.page }) },
        'list.reload': 'loading',
        'notice.dismiss': { actions: assign({ notice: null }) },
        'user.add': [
          {
            guard: 'mayCreate', target: 'form',
            actions: assign({
              notice: null,
              form: ({ context }) => ({ mode: 'create', service: context.service, tenants: context.tenants, tenantId: context.activeTenantId, now: context.now?.() ?? new Date() }),
            }),
          },
          { actions: 'refuse' },
        ],
        'user.edit': [
          {
            guard: 'mayEdit', target: 'form',
            actions: assign({
              notice: null,
              form: ({ context, event }) => ({ mode: 'edit', service: context.service, tenants: context.tenants, user: event.user, now: context.now?.() ?? new Date(), me: context.me }),
            }),
          },
          { actions: 'refuse' },
        ],
        'user.act': [
          { guard: { type: 'mayNotAct', params: ({ event }) => event }, actions: { type: 'refuse', params: ({ event }) => event } },
          { guard: { type: 'asksFirst', params: ({ event }) => event }, target: 'confirming', actions: assign({ notice: null, pending: ({ event }) => ({ action: event.action, user: event.user }) }) },
          { target: 'acting', actions: assign({ notice: null, pending: ({ event }) => ({ action: event.action, user: event.user }) }) },
        ],
      },
    },
    confirming: {
      on: {
        'confirm': 'acting',
        'confirm.cancel': { target: 'loaded', actions: assign({ pending: null }) },
      },
    },
    acting: {
      invoke: {
        id: 'runAction',
        src: 'runAction',
        input: ({ context }) => ({ service: context.service, action: context.pending!.action, user: context.pending!.user, tenantId: context.activeTenantId }),
        onDone: {
          target: 'loading',
          actions: assign({
            notice: ({ context, event }) => ({ tone: 'done', title: actionMessages(context.pending!.action, context.pending!.user, context.tenantName, event.output).done, text: null }),
            pending: null,
          }),
        },
        onError: {
          target: 'loaded',
          actions: assign({
            notice: ({ context, event }) => ({ tone: 'failed', title: actionMessages(context.pending!.action, context.pending!.user, context.tenantName).failed, text: detailOf(event.error) }),
            pending: null,
          }),
        },
      },
    },
    form: {
      invoke: {
        id: 'userForm',
        src: 'userForm',
        input: ({ context }) => context.form!,
        onDone: [
          {
            guard: { type: 'wasSaved', params: ({ event }) => event.output }, target: 'loading',
            actions: assign({
              notice: ({ context, event }) => ({
                tone: 'done', title: `${event.output.saved!.fullName} has been ${context.form?.mode === 'create' ? 'added' : 'updated'}`,
                text: context.form?.mode === 'create' ? invitationText((event.output.saved as AddedUser).invitation, event.output.saved!) : null,
              }),
              form: null,
            }),
          },
          { target: 'loaded', actions: assign({ form: null }) },
        ],
      },
    },
  },
});
