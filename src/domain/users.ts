/**
 * User-management rules (SPEC.md section 5, user form): one set of valibot schemas the server
 * validates requests with and the browser's user form validates with.
 */
import * as v from 'valibot';
import { DateText } from './dateTime.ts';
import { effectiveRoles, grantableRoles, isAccessExpired, ROLES, VIEW_ONLY_NOT_STACKABLE } from './roles.ts';
import { holdsNameControl } from './text.ts';

export const USER_MESSAGES = {
  fullName: 'Enter a full name of at least two words',
  fullNameLength: 'A full name can be 200 characters at most',
  fullNameCharacters: 'A full name cannot hold line breaks or other control characters',
  email: 'Enter a valid e-mail address',
  tenants: 'Choose at least 1 tenant',
  roles: 'Choose at least 1 role for each tenant',
  viewOnly: VIEW_ONLY_NOT_STACKABLE,
  expiry: 'The expiry date must be a date',
  duplicateTenant: 'Each tenant can be chosen once',
} as const;

export const USERS_PAGE_SIZE = 25;
export const USERS_MAX_PAGE_SIZE = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** At least two words: letters of any script, with apostrophes, dashes and dots inside names. */
export const isFullName = (name: string) => name.trim().split(/\s+/).filter((w) => /\p{L}/u.test(w)).length >= 2;

export const FullNameSchema = v.pipe(
  v.string(USER_MESSAGES.fullName), v.trim(),
  v.check(isFullName, USER_MESSAGES.fullName), v.maxLength(200, USER_MESSAGES.fullNameLength),
  // a name goes into e-mails, headers and logs: a line break there starts a line of someone else's choosing
  v.check((name) => !holdsNameControl(name), USER_MESSAGES.fullNameCharacters), v.examples(['Ada Lovelace']),
);
export const EmailSchema = v.pipe(v.string(USER_MESSAGES.email), v.trim(), v.maxLength(320, USER_MESSAGES.email), v.email(USER_MESSAGES.email));

export const RolesSchema = v.pipe(
  v.array(v.picklist(ROLES, 'Choose a role from the list'), USER_MESSAGES.roles),
  v.minLength(1, USER_MESSAGES.roles),
  v.check((roles) => !roles.includes('View Only') || roles.length === 1, USER_MESSAGES.viewOnly),
  v.transform((roles) => [...new Set(roles)]),
);

/** A date (yyyy-mm-dd) or a date-time; absent or null: no temporary access, the membership does not end. */
export const ExpirySchema = v.nullable(DateText('day or date-time', USER_MESSAGES.expiry));

export const MembershipInputSchema = v.object({
  tenantId: v.pipe(v.string(USER_MESSAGES.tenants), v.regex(UUID, USER_MESSAGES.tenants)),
  roles: RolesSchema,
  accessExpiresOn: v.optional(ExpirySchema, null),
});
export type MembershipInput = v.InferOutput<typeof MembershipInputSchema>;

export const MembershipsSchema = v.pipe(
  v.array(MembershipInputSchema, USER_MESSAGES.tenants),
  v.minLength(1, USER_MESSAGES.tenants),
  v.check((ms) => new Set(ms.map((m) => m.tenantId)).size === ms.length, USER_MESSAGES.duplicateTenant),
);

/** The user form's fields: what create and update take. */
export const UserInputSchema = v.object({
  fullName: FullNameSchema,
  email: EmailSchema,
  memberships: MembershipsSchema,
});
export type UserInput = v.InferInput<typeof UserInputSchema>;

/** Each problem of a user form, by field (`memberships.0.roles` for the first tenant's roles). */
export function userFormErrors(input: unknown): Record<string, string> {
  const result = v.safeParse(UserInputSchema, input);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.issues) {
    const key = v.getDotPath(issue) ?? 'form';
    errors[key] ??= issue.message;
  }
  return errors;
}

/** Internal staff: e-mail in the configured domain or one of its subdomains. */
export function isInternalEmail(email: string, domain: string | null | undefined): boolean {
  if (!domain) return false;
  const host = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const d = domain.toLowerCase().replace(/^@/, '');
  return host === d || host.endsWith(`.${d}`);
}

/** Why a change of access is refused (SPEC.md section 6: roles grant no more than their holder has). */
export const GRANT_MESSAGES = {
  role: (role: string) => `You can only give roles you hold yourself in this tenant, and ${role} is not one of yours.`,
  administrator: 'Only an Administrator can change an Administrator\'s access.',
  self: 'You cannot change your own roles or tenants; ask another user manager.',
  extend: (role: string) => `Giving more time gives every role of the membership again, and ${role} is not one of yours in this tenant.`,
  administratorAccount: 'Only an Administrator can change an Administrator\'s account.',
  coverEmail: (role: string) => `A sign-in e-mail can only be changed by someone who could give each of the user's roles, and ${role} is not one of yours.`,
} as const;

/** One tenant's membership before or after a change; null: not a member. */
export interface MembershipState { roles: readonly string[]; accessExpiresOn: Date | string | null }

const endOf = (m: MembershipState) => (m.accessExpiresOn == null ? Infinity : new Date(m.accessExpiresOn).getTime());

/**
 * Why the caller may not change a user's membership of one tenant from `before` to `after`, or
 * null when they may. A caller gives only roles they may grant (grantableRoles); a membership that
 * had ended, or whose access is given more time, gives all its roles again. Nobody changes their
 * own membership, and only an Administrator changes one that holds Administrator. Taking roles
 * away, or removing a user from a tenant, is a user manager's to do.
 */
export function membershipChangeRefusal(opts: {
  callerRoles: readonly string[]; self: boolean; before: MembershipState | null; after: MembershipState | null; now?: Date;
}): string | null {
  const { before, after, now = new Date() } = opts;
  const sameRoles = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((r) => b.includes(r));
  if (before && after && sameRoles(before.roles, after.roles) && endOf(before) === endOf(after)) return null;
  if (!before && !after) return null;
  if (opts.self) return GRANT_MESSAGES.self;
  const grantable = grantableRoles(opts.callerRoles);
  const callerIsAdministrator = effectiveRoles(opts.callerRoles).includes('Administrator');
  if (before && before.roles.includes('Administrator') && !callerIsAdministrator) return GRANT_MESSAGES.administrator;
  if (!after) return null;
  const live = before && !isAccessExpired(before.accessExpiresOn, now) ? before : null;
  const extended = live !== null && endOf(after) > endOf(live);
  for (const role of after.roles) {
    if ((grantable as readonly string[]).includes(role)) continue;
    if (!live || !live.roles.includes(role)) return GRANT_MESSAGES.role(role);
    if (extended) return GRANT_MESSAGES.extend(role);
  }
  return null;
}
