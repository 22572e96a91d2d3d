/** Contracts of the account-management service: the calls of SPEC.md section 7, with its paths exactly as written. */
import * as v from 'valibot';
import { ACTIONS, RESOURCES, ROLES } from '../roles.ts';
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

export const UserListItemSchema = v.object({
  auth0Id: v.string(), fullName: v.string(), email: v.string(), roles: Roles, accessExpiresOn: v.nullable(v.string()), active: v.boolean(),
});

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
    setActiveTenant: endpoint({
      method: 'patch', path: '/user/active-tenant', access: 'signed-in', body: ActiveTenantBody,
      response: v.object({ activeTenantId: v.string(), tenant: v.object({ id: v.string(), name: v.string() }), roles: Roles, policies: Policies }),
      summary: 'Switches the caller\'s active tenant.', problems: ['no-tenant-access'],
    }),
    deleteUserCache: endpoint({ method: 'delete', path: '/user/user-cache/:userId', access: 'signed-in', response: null, status: 204, summary: 'Called on logout.' }),
    users: endpoint({
      method: 'get', path: '/user/organization/:orgId/users', access: { resource: 'usermanagement', action: 'view' },
      response: v.object({ users: v.array(UserListItemSchema) }), summary: 'The users of the caller\'s tenant.',
    }),
  },
});
