/** The account-management gateway service. Every authenticated request carries the identity headers. */
import ky, { type KyInstance } from 'ky';

export interface IdentityHeaders {
  token: string;
  orgId: string;
  clientId: string;
  userId: string;
  userEmail: string;
  tenantId?: string | null;
}

export interface CurrentUser {
  activeTenantId: string | null;
  policies: Record<string, string[]>;
  auth0Id: string;
  fullName: string;
  email: string;
  loginCount: number;
  organizationName: string;
  roles: string[];
  tenants: { tenantId: string; name: string; roles: string[] }[];
  [field: string]: unknown;
}

export function accountManagementClient(headers: () => Promise<IdentityHeaders>): {
  organizationId(subdomain: string): Promise<string>;
  currentUser(orgId: string): Promise<CurrentUser>;
  deleteUserCache(userId: string): Promise<void>;
} {
  const base = ky.create({ prefix: '/account-management/v1', timeout: 10_000, retry: 0 });
  const authed: KyInstance = base.extend({
    hooks: {
      beforeRequest: [async ({ request }) => {
        const h = await headers();
        request.headers.set('Authorization', `Bearer ${h.token}`);
        request.headers.set('orgId', h.orgId);
        request.headers.set('clientId', h.clientId);
        request.headers.set('userId', h.userId);
        request.headers.set('userEmail', h.userEmail);
        if (h.tenantId) request.headers.set('tenantId', h.tenantId);
      }],
    },
  });
  return {
    organizationId: async (subdomain) =>
      (await base.get(`authentication/organization/subdomain/${encodeURIComponent(subdomain)}`).json<{ organizationId: string }>()).organizationId,
    currentUser: (orgId) => authed.get(`User/organization/${orgId}/user`).json<CurrentUser>(),
    deleteUserCache: async (userId) => { await authed.delete(`user/user-cache/${encodeURIComponent(userId)}`); },
  };
}
