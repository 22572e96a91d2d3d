/** The account-management gateway service (SPEC.md section 7). */
import { accountManagementService, type CurrentUser } from '../domain/api/accountManagement.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';

export type { CurrentUser };

const publicClient = serviceClient(accountManagementService, { authenticated: false });
const client = serviceClient(accountManagementService);

export const accountManagement = {
  organizationId: async (subdomain: string, o?: RequestOptions) =>
    (await publicClient.call('organizationBySubdomain', { params: { subdomain } }, o)).organizationId,
  currentUser: (orgId: string, o?: RequestOptions) => client.call('currentUser', { params: { orgId } }, o),
  setActiveTenant: (tenantId: string, o?: RequestOptions) => client.call('setActiveTenant', { body: { tenantId } }, o),
  deleteUserCache: (userId: string, o?: RequestOptions) => client.call('deleteUserCache', { params: { userId } }, o),
  ownerNotices: (orgId: string, o?: RequestOptions) => client.call('ownerNotices', { params: { orgId } }, o),
  setOwnerNotices: (orgId: string, ownerNotices: boolean, o?: RequestOptions) => client.call('setOwnerNotices', { params: { orgId }, body: { ownerNotices } }, o),
};
export type AccountManagement = typeof accountManagement;
