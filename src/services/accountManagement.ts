/** The account-management gateway service (SPEC.md section 7). */
import { gatewayClient, request, type RequestOptions } from './gateway.ts';

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

const BASE = '/account-management/v1';
const publicClient = gatewayClient(BASE, { authenticated: false });
const client = gatewayClient(BASE);

export const accountManagement = {
  organizationId: (subdomain: string, o?: RequestOptions) => request(async () =>
    (await publicClient.get(`authentication/organization/subdomain/${encodeURIComponent(subdomain)}`).json<{ organizationId: string }>()).organizationId, o),
  currentUser: (orgId: string, o?: RequestOptions) => request(() => client.get(`User/organization/${orgId}/user`).json<CurrentUser>(), o),
  setActiveTenant: (tenantId: string, o?: RequestOptions) =>
    request(() => client.patch('user/active-tenant', { json: { tenantId } }).json<{ activeTenantId: string; policies: Record<string, string[]> }>(), o),
  deleteUserCache: (userId: string, o?: RequestOptions) =>
    request(async () => { await client.delete(`user/user-cache/${encodeURIComponent(userId)}`); }, o),
};
export type AccountManagement = typeof accountManagement;
