/** Contracts of the account-management service: the calls of SPEC.md section 7, with its paths exactly as written. */
import * as v from 'valibot';
import { ACTIONS, RESOURCES, ROLES } from '../roles.ts';
import { UserInputSchema, USERS_MAX_PAGE_SIZE, USERS_PAGE_SIZE } from '../users.ts';
import { endpoint, service } from './contract.ts';

const Policies = v.record(v.picklist(RESOURCES), v.array(v.picklist(ACTIONS)));
const Roles = v.array(v.picklist(ROLES));

export const TenantAccessSchema = v.object({
  tenantId: v.string(), name: v.string(), roles: Roles, policies: Policies, accessExpiresOn: v.nullable(v.string()),
});

/** The current user of the login-details call (SPEC.md section 3). */
export const CurrentUserSchema = v.object({
  activeTenantId: v.nullable(v.string()),
  policies: Policies,
  roles: Roles,
  auth0Id: v.string(),
  fullName: v.string(),
  email: v.string(),
  skuConnectorDetail: v.array(v.string()),
  skuSubProduct: v.nullable(v.string()),
  skuTopLevelProduct: v.nullable(v.string()),
  autoProvisioned: v.boolean(),
  loginCount: v.number(),
  createdOn: v.string(),
  datasources: v.array(v.string()),
  clientDatasources: v.array(v.unknown()),
  policiesDefinitions: v.record(v.picklist(ROLES), Policies),
  organizationName: v.string(),
  salesforceAccountID: v.nullable(v.string()),
  tenants: v.array(v.object({ tenantId: v.string(), name: v.string(), roles: Roles })),
});
export type CurrentUser = v.InferOutput<typeof CurrentUserSchema>;

export const ActiveTenantBody = v.object({ tenantId: v.pipe(v.string(), v.uuid('tenantId must be a tenant id.')) });
const ActiveTenant = v.object({ activeTenantId: v.nullable(v.string()), tenant: v.nullable(v.object({ id: v.string(), name: v.string() })) });

const MembershipSchema = v.object({ tenantId: v.string(), name: v.string(), roles: Roles, accessExpiresOn: v.nullable(v.string()) });

/**
 * A user as user management shows it: roles and expiry in the caller's tenant, and the memberships
 * of the tenants the caller manages (never another tenant's). `internal`: staff by e-mail domain.
 * `pendingEmail`: a new sign-in e-mail sent a confirmation link; `email` signs in until it is confirmed.
 */
export const UserListItemSchema = v.object({
  auth0Id: v.string(), fullName: v.string(), email: v.string(), pendingEmail: v.nullable(v.string()), roles: Roles, accessExpiresOn: v.nullable(v.string()), active: v.boolean(),
  internal: v.boolean(), tenants: v.array(MembershipSchema),
});
export type UserListItem = v.InferOutput<typeof UserListItemSchema>;

const once = (name: string) => `${name} can be given once.`;
export const UsersQuerySchema = v.object({
  q: v.optional(v.pipe(v.string(once('q')), v.trim(), v.maxLength(200, 'q can be 200 characters at most.'),
    v.description('text the full name or e-mail contains, any case'))),
  page: v.optional(v.pipe(v.string(once('page')), v.regex(/^\d{1,6}$/, 'page must be a whole number from 1.'), v.transform(Number),
    v.minValue(1, 'page must be a whole number from 1.'), v.description('the page, from 1')), '1'),
  pageSize: v.optional(v.pipe(v.string(once('pageSize')), v.regex(/^\d{1,3}$/, `pageSize must be a whole number from 1 to ${USERS_MAX_PAGE_SIZE}.`),
    v.transform(Number), v.minValue(1, `pageSize must be a whole number from 1 to ${USERS_MAX_PAGE_SIZE}.`),
    v.maxValue(USERS_MAX_PAGE_SIZE, `pageSize must be a whole number from 1 to ${USERS_MAX_PAGE_SIZE}.`),
    v.description(`users per page, ${USERS_PAGE_SIZE} when absent`)), String(USERS_PAGE_SIZE)),
});
export type UsersQuery = v.InferOutput<typeof UsersQuerySchema>;

/**
 * Where a password-reset link went: e-mailed to the user, into the server log (no mail server
 * configured), or made by Auth0 and put in the server log.
 */
export const PASSWORD_RESET_DELIVERIES = ['email', 'server-log', 'auth0'] as const;
export type PasswordResetDelivery = typeof PASSWORD_RESET_DELIVERIES[number];

/**
 * How a new user's invitation (a link to choose a first password) went: e-mailed, into the server
 * log (no mail server configured), not sent (the mail server failed; a password reset sends
 * another), or left to an external identity provider, which keeps the passwords.
 */
export const USER_INVITATIONS = ['email', 'server-log', 'not-sent', 'identity-provider'] as const;
export type UserInvitation = typeof USER_INVITATIONS[number];

/** the choice's words: the user menu shows them, and the e-mails say where to turn them off */
export const OWNER_NOTICES_LABEL = 'E-mail me when my formulas or data sources need attention';

/** the caller's choice of e-mails about what they own (server/services/ownerNotices.ts) */
export const OwnerNoticesSchema = v.strictObject({ ownerNotices: v.boolean() });
export type OwnerNoticesChoice = v.InferOutput<typeof OwnerNoticesSchema>;

const UserOut = v.object({ user: UserListItemSchema });
const AddedUserOut = v.object({ user: UserListItemSchema, invitation: v.picklist(USER_INVITATIONS) });
const manage = (action: 'view' | 'create' | 'edit' | 'delete') => ({ resource: 'usermanagement', action }) as const;

export const accountManagementService = service({
  name: 'account management',
  basePath: '/account-management/v1',
  endpoints: {
    organizationBySubdomain: endpoint({
      method: 'get', path: '/authentication/organization/subdomain/:subdomain', access: 'public',
      response: v.object({ organizationId: v.string(), organizationName: v.string(), subdomain: v.string() }),
      summary: 'The organisation of a subdomain; the browser asks before sign-in.', problems: ['unknown-subdomain'],
    }),
    currentUser: endpoint({
      method: 'get', path: '/User/organization/:orgId/user', access: 'signed-in', response: CurrentUserSchema,
      summary: 'The current user\'s login details (SPEC.md section 3).', problems: ['no-tenants', 'no-roles'],
    }),
    tenantData: endpoint({
      method: 'get', path: '/Tenant/organization/:orgId/user/:userId', access: 'signed-in',
      response: v.object({ userId: v.string(), activeTenantId: v.nullable(v.string()), tenants: v.array(TenantAccessSchema) }),
      summary: 'A user\'s tenants with roles: one\'s own, or, with usermanagement view, a user of a shared tenant (shared tenants only).',
    }),
    activeTenant: endpoint({ method: 'get', path: '/user/organization/:orgId/user/active-tenant', access: 'signed-in', response: ActiveTenant, summary: 'The caller\'s active tenant.' }),
    userActiveTenant: endpoint({
      method: 'get', path: '/user/organization/:orgId/users/:userId/active-tenant', access: 'signed-in', response: ActiveTenant,
      summary: 'A user\'s active tenant (own, or with usermanagement view; named only when shared).',
    }),
    ownerNotices: endpoint({
      method: 'get', path: '/user/organization/:orgId/user/owner-notices', access: 'signed-in', response: OwnerNoticesSchema,
      summary: 'Whether the caller is e-mailed when a formula they made errors after its retries, or a data source of theirs or of their formulas needs reconnecting.',
    }),
    setOwnerNotices: endpoint({
      method: 'put', path: '/user/organization/:orgId/user/owner-notices', access: 'signed-in', body: OwnerNoticesSchema, response: OwnerNoticesSchema,
      summary: 'Turns those e-mails on or off for the caller.',
    }),
    setActiveTenant: endpoint({
      method: 'patch', path: '/user/active-tenant', access: 'signed-in', body: ActiveTenantBody,
      response: v.object({ activeTenantId: v.string(), tenant: v.object({ id: v.string(), name: v.string() }), roles: Roles, policies: Policies }),
      summary: 'Switches the caller\'s active tenant.', problems: ['no-tenant-access'],
    }),
    deleteUserCache: endpoint({ method: 'delete', path: '/user/user-cache/:userId', access: 'signed-in', response: null, status: 204, summary: 'Called on logout.' }),
    users: endpoint({
      method: 'get', path: '/user/organization/:orgId/users', access: manage('view'), query: UsersQuerySchema,
      response: v.object({ users: v.array(UserListItemSchema), total: v.number(), page: v.number(), pageSize: v.number() }),
      summary: 'The users of the caller\'s tenant, by full name, a page at a time, optionally those whose name or e-mail contains q.',
    }),
    user: endpoint({
      method: 'get', path: '/user/organization/:orgId/users/:userId', access: manage('view'), response: UserOut,
      summary: 'One user of the caller\'s tenant, with the memberships of the tenants the caller manages.',
    }),
    createUser: endpoint({
      method: 'post', path: '/user/organization/:orgId/users', access: manage('create'), body: UserInputSchema, response: AddedUserOut, status: 201,
      summary: 'Adds a user to tenants the caller manages, with roles and optional temporary access per tenant, and invites them: a link to choose a password, e-mailed through SMTP_URL, or printed in the server log when no mail is configured.',
      problems: ['user-not-created', 'no-tenant-access'],
    }),
    updateUser: endpoint({
      method: 'put', path: '/user/organization/:orgId/users/:userId', access: manage('edit'), body: UserInputSchema, response: UserOut,
      summary: 'Replaces a user\'s name, e-mail and memberships of the tenants the caller manages; others stay. Name and e-mail need every tenant of the user managed by the caller; a new e-mail is sent a confirmation link and signs in once confirmed.',
      problems: ['user-not-updated', 'no-tenant-access'],
    }),
    deactivateUser: endpoint({
      method: 'post', path: '/user/organization/:orgId/users/:userId/deactivate', access: manage('edit'), response: UserOut,
      summary: 'Deactivates a user: their next request is refused.', problems: ['user-not-updated'],
    }),
    reactivateUser: endpoint({
      method: 'post', path: '/user/organization/:orgId/users/:userId/reactivate', access: manage('edit'), response: UserOut,
      summary: 'Reactivates a deactivated user.', problems: ['user-not-updated'],
    }),
    deleteUser: endpoint({
      method: 'delete', path: '/user/organization/:orgId/users/:userId', access: manage('delete'), response: null, status: 204,
      summary: 'Deletes a user who belongs only to tenants the caller manages (Administrators only).', problems: ['user-not-deleted'],
    }),
    removeUserFromTenant: endpoint({
      method: 'delete', path: '/user/organization/:orgId/users/:userId/tenants/:tenantId', access: manage('edit'), response: null, status: 204,
      summary: 'Removes a user from one tenant the caller manages.', problems: ['user-not-updated', 'no-tenant-access'],
    }),
    removeUserFromAllTenants: endpoint({
      method: 'delete', path: '/user/organization/:orgId/users/:userId/tenants', access: manage('edit'), response: null, status: 204,
      summary: 'Removes a user from every tenant the caller manages.', problems: ['user-not-updated'],
    }),
    resetUserPassword: endpoint({
      method: 'post', path: '/user/organization/:orgId/users/:userId/password-reset', access: manage('edit'), response: v.object({ delivery: v.picklist(PASSWORD_RESET_DELIVERIES) }),
      summary: 'Makes a password-reset link for the user (Auth0\'s with a real Auth0 tenant) and e-mails it through SMTP_URL, or prints it in the server log when no mail is configured.',
      problems: ['password-not-reset'],
    }),
  },
});
