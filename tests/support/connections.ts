/** Helpers for the Connections tests: a signed-in session with its tenant, and the integrations API. */
import { call, sessionFor, type Session } from './api.ts';

export const INTEGRATIONS = '/integrations/v1';

/** A signed-in session with its active tenant in the headers, and all its tenants. */
export interface TenantSession extends Session {
  tenantId: string;
  tenants: { tenantId: string; name: string }[];
  tenantIds: string[];
  withTenant(tenantId: string): Record<string, string>;
}

export async function tenantSession(base: string, email: string): Promise<TenantSession> {
  const s = await sessionFor(base, email);
  const res = await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers });
  const me = await res.json() as { activeTenantId: string; tenants: { tenantId: string; name: string }[] };
  return {
    ...s,
    tenantId: me.activeTenantId,
    tenants: me.tenants,
    tenantIds: me.tenants.map((t) => t.tenantId),
    headers: { ...s.headers, tenantId: me.activeTenantId },
    withTenant: (tenantId: string) => ({ ...s.headers, tenantId }),
  };
}

export function integrations(base: string, headers: Record<string, string>) {
  return (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    call(base, `${INTEGRATIONS}${path}`, { ...init, headers: { ...headers, ...init.headers } });
}
