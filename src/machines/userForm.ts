/**
 * The add/edit user form of User Management (SPEC.md sections 5 and 6): full name, e-mail, and per
 * tenant the caller manages whether the user belongs to it, their roles there and an optional
 * temporary-access expiry date. The rules are the domain's (src/domain/users.ts), the ones the
 * server checks too; the form adds only that a newly set expiry must lie in the future, since
 * access that has already ended would be granted and refused at once.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { UserListItem } from '../domain/api/accountManagement.ts';
import { MESSAGES } from '../domain/errors.ts';
import { grantableRoles, isAccessExpired, ROLES, type Role } from '../domain/roles.ts';
import { membershipChangeRefusal, userFormErrors, type UserInput } from '../domain/users.ts';
import type { UsersService } from '../services/users.ts';

export const EXPIRY_NOT_FUTURE = 'The expiry date must be in the future';

/**
 * A tenant the caller manages, with the caller's own roles there: a caller gives only the roles
 * they hold (grantableRoles). Without `roles` every role is offered and the server decides.
 */
export interface TenantChoice { tenantId: string; name: string; roles?: Role[] }

/** The roles the form offers in a tenant: those the caller may give, and those the user has there already. */
export function offeredRoles(tenant: TenantChoice, held: readonly Role[] = []): Role[] {
  if (!tenant.roles) return [...ROLES];
  const grantable = grantableRoles(tenant.roles);
  return ROLES.filter((r) => grantable.includes(r) || held.includes(r));
}

/** One tenant the user belongs to, as the form edits it: the expiry a yyyy-mm-dd day or '' for none. */
export interface MembershipDraft { tenantId: string; roles: Role[]; accessExpiresOn: string }

export type UserFormInput = {
  service: Pick<UsersService, 'create' | 'update'>;
  /** the tenants the caller manages: the only ones the form offers */
  tenants: TenantChoice[];
  /** today, for the expiry check */
  now: Date;
  /** the caller's auth0Id: nobody changes their own memberships */
  me?: string;
} & ({ mode: 'create'; /** chosen at first: the tenant the caller works in */ tenantId: string | null } | { mode: 'edit'; user: UserListItem });

export interface UserFormContext {
  mode: 'create' | 'edit';
  userId: string | null;
  service: UserFormInput['service'];
  tenants: TenantChoice[];
  now: Date;
  fullName: string;
  email: string;
  /** in the order of `tenants` */
  memberships: MembershipDraft[];
  /** the expiry each tenant had when the form opened: an edit may keep a past one unchanged */
  loadedExpiry: Record<string, string>;
  /** the roles each tenant had when the form opened */
  loadedRoles: Record<string, Role[]>;
  /** the user is the caller */
  self: boolean;
  /** by field: `fullName`, `email`, `memberships`, `memberships.<i>.roles`, `memberships.<i>.accessExpiresOn` */
  errors: Record<string, string>;
  /** a save was tried: errors show from then on */
  submitted: boolean;
  /** SPEC.md section 8's message of a failed save, and the server's reason */
  saveError: string | null;
  saveDetail: string | null;
  saved: UserListItem | null;
}

export type UserFormEvent =
  | { type: 'name.change'; value: string }
  | { type: 'email.change'; value: string }
  | { type: 'tenant.toggle'; tenantId: string }
  | { type: 'role.toggle'; tenantId: string; role: Role }
  | { type: 'expiry.change'; tenantId: string; value: string }
  | { type: 'form.submit' }
  | { type: 'form.cancel' };

/** What create and update send. */
export function userInputOf(c: Pick<UserFormContext, 'fullName' | 'email' | 'memberships'>): UserInput {
  return {
    fullName: c.fullName, email: c.email,
    memberships: c.memberships.map((m) => ({ tenantId: m.tenantId, roles: m.roles, accessExpiresOn: m.accessExpiresOn || null })),
  };
}

/**
 * The domain's problems of the form, an expiry set to a day that has already begun or passed, and
 * a change of access the caller may not make (the server's rule, said before saving).
 */
export function userFormProblems(c: Pick<UserFormContext, 'fullName' | 'email' | 'memberships' | 'loadedExpiry' | 'now'>
  & Partial<Pick<UserFormContext, 'tenants' | 'loadedRoles' | 'self'>>): Record<string, string> {
  const errors = userFormErrors(userInputOf(c));
  c.memberships.forEach((m, i) => {
    const key = `memberships.${i}.accessExpiresOn`;
    if (errors[key] || !m.accessExpiresOn || m.accessExpiresOn === c.loadedExpiry[m.tenantId]) return;
    // the server reads a day as its start (UTC), so a day that has begun has already ended the access
    if (isAccessExpired(m.accessExpiresOn, c.now)) errors[key] = EXPIRY_NOT_FUTURE;
  });
  for (const tenant of c.tenants ?? []) {
    if (!tenant.roles) continue;
    const i = c.memberships.findIndex((m) => m.tenantId === tenant.tenantId);
    const held = c.loadedRoles?.[tenant.tenantId];
    const before = held ? { roles: held, accessExpiresOn: c.loadedExpiry[tenant.tenantId] || null } : null;
    const after = i >= 0 ? { roles: c.memberships[i]!.roles, accessExpiresOn: c.memberships[i]!.accessExpiresOn || null } : null;
    const why = membershipChangeRefusal({ callerRoles: tenant.roles, self: c.self ?? false, before, after, now: c.now });
    const key = i >= 0 ? `memberships.${i}.roles` : 'memberships';
    if (why) errors[key] ??= `${tenant.name}: ${why}`;
  }
  return errors;
}

/** A field's error as the form shows it: only once a save was tried. */
export function membershipError(c: Pick<UserFormContext, 'memberships' | 'errors' | 'submitted'>, tenantId: string, field: 'roles' | 'accessExpiresOn' | 'tenantId'): string | undefined {
  const i = c.memberships.findIndex((m) => m.tenantId === tenantId);
  return c.submitted && i >= 0 ? c.errors[`memberships.${i}.${field}`] : undefined;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');

function startContext(input: UserFormInput): UserFormContext {
  const base = { service: input.service, tenants: input.tenants, now: input.now, errors: {}, submitted: false, saveError: null, saveDetail: null, saved: null };
  if (input.mode === 'create') {
    const start = input.tenants.find((t) => t.tenantId === input.tenantId);
    return {
      ...base, mode: 'create', userId: null, fullName: '', email: '', loadedExpiry: {}, loadedRoles: {}, self: false,
      memberships: start ? [{ tenantId: start.tenantId, roles: [], accessExpiresOn: '' }] : [],
    };
  }
  const managed = input.tenants.flatMap((t) => input.user.tenants.filter((m) => m.tenantId === t.tenantId));
  return {
    ...base, mode: 'edit', userId: input.user.auth0Id, fullName: input.user.fullName, email: input.user.email,
    memberships: managed.map((m) => ({ tenantId: m.tenantId, roles: [...m.roles], accessExpiresOn: day(m.accessExpiresOn) })),
    loadedExpiry: Object.fromEntries(managed.map((m) => [m.tenantId, day(m.accessExpiresOn)])),
    loadedRoles: Object.fromEntries(managed.map((m) => [m.tenantId, [...m.roles]])),
    self: input.me !== undefined && input.me === input.user.auth0Id,
  };
}

const problemOf = (error: unknown) => (error as { problem?: { detail?: string } } | null)?.problem ?? {};

export const userFormMachine = setup({
  types: {
    context: {} as UserFormContext,
    events: {} as UserFormEvent,
    input: {} as UserFormInput,
    output: {} as { saved: UserListItem | null },
  },
  actors: {
    saveUser: fromPromise<UserListItem, UserFormContext>(({ input }) => (input.mode === 'create'
      ? input.service.create(userInputOf(input), { silent: true })
      : input.service.update(input.userId!, userInputOf(input), { silent: true }))),
  },
  guards: {
    isValid: ({ context }) => Object.keys(userFormProblems(context)).length === 0,
  },
  actions: {
    setName: assign({ fullName: (_, p: { value: string }) => p.value }),
    setEmail: assign({ email: (_, p: { value: string }) => p.value }),
    toggleTenant: assign({
      memberships: ({ context }, p: { tenantId: string }) => (context.memberships.some((m) => m.tenantId === p.tenantId)
        ? context.memberships.filter((m) => m.tenantId !== p.tenantId)
        // kept in the order of the tenants offered, so errors by position stay where they are shown
        : context.tenants.flatMap((t) => context.memberships.find((m) => m.tenantId === t.tenantId)
          ?? (t.tenantId === p.tenantId ? [{ tenantId: t.tenantId, roles: [], accessExpiresOn: context.loadedExpiry[t.tenantId] ?? '' }] : []))),
    }),
    toggleRole: assign({
      memberships: ({ context }, p: { tenantId: string; role: Role }) => context.memberships.map((m) => (m.tenantId !== p.tenantId ? m : {
        ...m, roles: m.roles.includes(p.role) ? m.roles.filter((r) => r !== p.role) : [...m.roles, p.role],
      })),
    }),
    setExpiry: assign({
      memberships: ({ context }, p: { tenantId: string; value: string }) => context.memberships.map((m) => (m.tenantId === p.tenantId ? { ...m, accessExpiresOn: p.value } : m)),
    }),
    /** after a save was tried, errors follow each change */
    recheck: assign({ errors: ({ context }) => (context.submitted ? userFormProblems(context) : {}) }),
    refuse: assign({ submitted: true, errors: ({ context }) => userFormProblems(context) }),
    clearSaveError: assign({ saveError: null, saveDetail: null }),
  },
}).createMachine({
  id: 'userForm',
  context: ({ input }) => startContext(input),
  initial: 'editing',
  output: ({ context }) => ({ saved: context.saved }),
  on: { 'form.cancel': '.cancelled' },
  states: {
    editing: {
      on: {
        'name.change': { actions: [{ type: 'setName', params: ({ event }) => event }, 'recheck'] },
        'email.change': { actions: [{ type: 'setEmail', params: ({ event }) => event }, 'recheck'] },
        'tenant.toggle': { actions: [{ type: 'toggleTenant', params: ({ event }) => event }, 'recheck'] },
        'role.toggle': { actions: [{ type: 'toggleRole', params: ({ event }) => event }, 'recheck'] },
        'expiry.change': { actions: [{ type: 'setExpiry', params: ({ event }) => event }, 'recheck'] },
        'form.submit': 'validating',
      },
    },
    validating: {
      always: [
        { guard: 'isValid', target: 'saving', actions: assign({ errors: {} }) },
        { target: 'editing', actions: 'refuse' },
      ],
    },
    saving: {
      invoke: {
        id: 'saveUser',
        src: 'saveUser',
        input: ({ context }) => context,
        onDone: { target: 'saved', actions: assign({ saved: ({ event }) => event.output }) },
        onError: {
          target: 'failed',
          actions: assign(({ context, event }) => ({
            saveError: context.mode === 'create' ? MESSAGES.userNotCreated : MESSAGES.userNotUpdated,
            saveDetail: problemOf(event.error).detail ?? null,
          })),
        },
      },
      // a save under way finishes: the server may already have done it
      on: { 'form.cancel': {} },
    },
    /** the form stays as it was, with the reason; any change or a new try leaves it */
    failed: {
      exit: 'clearSaveError',
      on: {
        'name.change': { target: 'editing', actions: [{ type: 'setName', params: ({ event }) => event }, 'recheck'] },
        'email.change': { target: 'editing', actions: [{ type: 'setEmail', params: ({ event }) => event }, 'recheck'] },
        'tenant.toggle': { target: 'editing', actions: [{ type: 'toggleTenant', params: ({ event }) => event }, 'recheck'] },
        'role.toggle': { target: 'editing', actions: [{ type: 'toggleRole', params: ({ event }) => event }, 'recheck'] },
        'expiry.change': { target: 'editing', actions: [{ type: 'setExpiry', params: ({ event }) => event }, 'recheck'] },
        'form.submit': 'validating',
      },
    },
    saved: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
