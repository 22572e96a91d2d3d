/** User management of the account-management service (/account-management/v1), typed by its contract (src/domain/api/accountManagement.ts). */
import { accountManagementService, type PasswordResetDelivery, type UserInvitation, type UserListItem } from '../domain/api/accountManagement.ts';
import { USERS_PAGE_SIZE, type UserInput } from '../domain/users.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';

export type { UserInput, UserListItem };
/** a user just added, with how their invitation went */
export type AddedUser = UserListItem & { invitation?: UserInvitation };

export interface UsersPageQuery { q?: string; page?: number; pageSize?: number }
export interface UsersPage { users: UserListItem[]; total: number; page: number; pageSize: number }

const client = serviceClient(accountManagementService);

/** Every call names the organisation; the tenant is the session's active one (its header). */
export function usersService(orgId: string) {
  const user = (userId: string) => ({ orgId, userId });
  return {
    list: (query: UsersPageQuery = {}, o?: RequestOptions): Promise<UsersPage> => client.call('users', {
      params: { orgId },
      query: { q: query.q?.trim() || undefined, page: String(query.page ?? 1), pageSize: String(query.pageSize ?? USERS_PAGE_SIZE) },
    }, o),
    get: async (userId: string, o?: RequestOptions): Promise<UserListItem> => (await client.call('user', { params: user(userId) }, o)).user,
    create: async (body: UserInput, o?: RequestOptions): Promise<AddedUser> => {
      const { user: added, invitation } = await client.call('createUser', { params: { orgId }, body }, o);
      return { ...added, invitation };
    },
    update: async (userId: string, body: UserInput, o?: RequestOptions): Promise<UserListItem> =>
      (await client.call('updateUser', { params: user(userId), body }, o)).user,
    deactivate: async (userId: string, o?: RequestOptions): Promise<UserListItem> => (await client.call('deactivateUser', { params: user(userId) }, o)).user,
    reactivate: async (userId: string, o?: RequestOptions): Promise<UserListItem> => (await client.call('reactivateUser', { params: user(userId) }, o)).user,
    remove: (userId: string, o?: RequestOptions): Promise<void> => client.call('deleteUser', { params: user(userId) }, o),
    removeFromTenant: (userId: string, tenantId: string, o?: RequestOptions): Promise<void> =>
      client.call('removeUserFromTenant', { params: { ...user(userId), tenantId } }, o),
    removeFromAllTenants: (userId: string, o?: RequestOptions): Promise<void> => client.call('removeUserFromAllTenants', { params: user(userId) }, o),
    resetPassword: (userId: string, o?: RequestOptions): Promise<{ delivery: PasswordResetDelivery }> => client.call('resetUserPassword', { params: user(userId) }, o),
  };
}
export type UsersService = ReturnType<typeof usersService>;
