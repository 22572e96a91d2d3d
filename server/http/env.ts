import type { Logger } from 'pino';
import type { Action, Policies, Resource, Role } from '../../src/domain/roles.ts';
import type { TenantScope } from '../db/tenancy.ts';

/** Who is calling, after the token and the headers have been checked against the database. */
export interface Caller {
  userId: string;          // users.id
  auth0Id: string;         // the token's subject; the userId header carries it
  email: string;
  fullName: string;
  organizationId: string;
  clientId: string;
  /** the tenant named by the tenantId header, when one was sent and the user may use it */
  tenantId: string | null;
  roles: Role[];
  policies: Policies;
}

export interface AppEnv {
  Variables: {
    log: Logger;
    requestId: string;
    correlationId: string;
    caller: Caller;
    /** the access token's expiry and sign-in time (epoch ms; seconds for signedInAt) */
    token: { expiresAt: number; signedInAt: number | undefined };
    /** the caller's tenant as a scope (server/db/tenancy.ts), when the request named one the caller may use */
    tenant: TenantScope | null;
    /** set by requirePolicy when it refuses: the policy the caller lacks, for the refusal's event */
    refusedPolicy?: { resource: Resource; action: Action };
  };
}

/** After requireTenant or requirePolicy: the request has a tenant scope. */
export interface TenantEnv {
  Variables: AppEnv['Variables'] & { tenant: TenantScope };
}
