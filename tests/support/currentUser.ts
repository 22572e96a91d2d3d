/** A complete current user (the login-details answer of src/domain/api/accountManagement.ts) for screen tests: give what the test is about. */
import type { CurrentUser } from '../../src/domain/api/accountManagement.ts';
import { ROLE_POLICIES } from '../../src/domain/roles.ts';

export function aCurrentUser(given: Partial<CurrentUser> & Pick<CurrentUser, 'policies'>): CurrentUser {
  return {
    activeTenantId: 't1', roles: [], auth0Id: 'auth0|u1', fullName: 'Sam Tester', email: 'sam@example.org',
    skuConnectorDetail: [], skuSubProduct: null, skuTopLevelProduct: null, autoProvisioned: false, loginCount: 5,
    createdOn: '2026-01-05T09:00:00.000Z', datasources: [], clientDatasources: [], policiesDefinitions: ROLE_POLICIES,
    organizationName: 'Riverside', salesforceAccountID: null, tenants: [{ tenantId: 't1', name: 'Food Bank', roles: [] }],
    ...given,
  };
}
