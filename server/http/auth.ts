/**
 * Request security (DESIGN.md section 4): the bearer token is verified with jose (RS256 only,
 * issuer, audience, expiry; the key comes from the issuer's key set, never from the token), then
 * every identity header is checked against the token and the user's memberships.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { and, eq } from 'drizzle-orm';
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { can, effectiveRoles, isAccessExpired, policiesFor, type Action, type Resource } from '../../src/domain/roles.ts';
import { ACCOUNT_DEACTIVATED, accessEnded } from '../db/accounts.ts';
import { ACCOUNT_DEACTIVATED_CODE } from '../../src/domain/identity.ts';
import type { Db } from '../db/database.ts';
import { memberships, users } from '../db/schema/accounts.ts';
import { forTenant } from '../db/tenancy.ts';
import { sessionEnded } from '../identity/sessions.ts';
import { recordRepeatedEvent } from '../services/events.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { AppEnv, Caller, TenantEnv } from './env.ts';
import { fail } from './problem.ts';

export interface TokenVerifier {
  keys: JWTVerifyGetKey;
  issuer: string;
  audience: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string | undefined): s is string => !!s && UUID.test(s);

/**
 * What routers get of sign-in: the middleware that makes a request a caller (and a tenant scope),
 * and the same check again for an answer that outlives its request (the status stream).
 */
export interface Auth {
  signedIn: MiddlewareHandler<AppEnv>;
  currentAccess(who: AccessQuery): ReturnType<typeof currentAccess>;
}

export function createAuth(db: Db, verifier: TokenVerifier): Auth {
  return { signedIn: authenticate(db, verifier), currentAccess: (who) => currentAccess(db, who) };
}

type AccessQuery = { sub: string; tenantId: string | null; signedInAt: number | undefined };

export function authenticate(db: Db, verifier: TokenVerifier): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    // RFC 9110: the auth scheme is case-insensitive
    const match = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header);
    if (!match) return fail('unauthenticated', 'A bearer access token is required.');
    let payload;
    try {
      ({ payload } = await jwtVerify(match[1]!, verifier.keys, {
        issuer: verifier.issuer,
        audience: verifier.audience,
        algorithms: ['RS256'],
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      const detail = err instanceof joseErrors.JWTExpired ? 'The access token has expired.' : 'The access token is not valid.';
      return fail('unauthenticated', detail, {}, err instanceof joseErrors.JWTExpired ? 'token-expired' : 'token-invalid');
    }

    const orgId = requiredHeader(c.req.header('orgId'), 'orgId');
    const clientId = requiredHeader(c.req.header('clientId'), 'clientId');
    const userId = requiredHeader(c.req.header('userId'), 'userId');
    const userEmail = requiredHeader(c.req.header('userEmail'), 'userEmail');
    const tenantId = c.req.header('tenantId') || null;
    if (!isUuid(orgId)) fail('bad-request', 'Header orgId must be an organisation id.');
    if (tenantId !== null && !isUuid(tenantId)) fail('bad-request', 'Header tenantId must be a tenant id.');

    const tokenClient = (payload.client_id ?? payload.azp) as string | undefined;
    if (userId !== payload.sub) fail('forbidden', 'Header userId does not match the signed-in user.');
    if (tokenClient && clientId !== tokenClient) fail('forbidden', 'Header clientId does not match the token.');

    const { user, roles } = await currentAccess(db, { sub: payload.sub!, tenantId, signedInAt: signedInAt(payload) });
    if (user.organizationId !== orgId) fail('forbidden', 'Header orgId is not your organisation.');
    if (!user.email || user.email.toLowerCase() !== userEmail.toLowerCase()) fail('forbidden', 'Header userEmail does not match the signed-in user.');

    const caller: Caller = {
      userId: user.id,
      auth0Id: user.auth0Id,
      email: user.email!,
      fullName: user.fullName,
      organizationId: user.organizationId,
      clientId,
      tenantId,
      roles: effectiveRoles(roles),
      policies: policiesFor(roles),
    };
    c.set('caller', caller);
    c.set('token', { expiresAt: payload.exp! * 1000, signedInAt: signedInAt(payload) });
    // the one place a request becomes a tenant scope: the membership was checked just above
    c.set('tenant', tenantId ? forTenant(db, tenantId) : null);
    c.var.log?.debug({ user: user.id, tenantId }, 'authenticated');
    await next();
  };
}

/** When the token's sign-in happened: its auth_time (kept through refreshes), else when it was issued. */
const signedInAt = (payload: JWTPayload) => (typeof payload.auth_time === 'number' ? payload.auth_time : payload.iat);

/**
 * The account and tenant a token may use now, read from the database (never cached, so
 * deactivation, ended sessions, roles and expiry hold from the next request on every process).
 * Requests use it, and so does every push of a long-lived status stream.
 */
export async function currentAccess(db: Db, who: AccessQuery) {
  const [user] = await db.select().from(users).where(eq(users.auth0Id, who.sub)).limit(1);
  if (!user) return fail('forbidden', 'This sign-in has no Tributary account.');
  if (user.deactivatedOn) return fail('forbidden', ACCOUNT_DEACTIVATED, {}, ACCOUNT_DEACTIVATED_CODE);
  if (sessionEnded(user.sessionsValidAfter, who.signedInAt)) {
    return fail('unauthenticated', 'This sign-in has ended. Please sign in again.', {}, 'session-ended');
  }
  let roles: string[] = [];
  if (who.tenantId) {
    const [m] = await db.select().from(memberships)
      .where(and(eq(memberships.userId, user.id), eq(memberships.tenantId, who.tenantId))).limit(1);
    if (!m) return fail('no-tenant-access');
    if (isAccessExpired(m.accessExpiresOn)) {
      return fail('no-tenant-access', accessEnded(m.accessExpiresOn!, 'this tenant'), {}, 'access-expired');
    }
    roles = m.roles;
  }
  return { user, roles };
}

function requiredHeader(value: string | undefined, name: string): string {
  if (!value) fail('bad-request', `Header ${name} is required.`);
  if (value!.length > 320) fail('bad-request', `Header ${name} is too long.`);
  return value!;
}

/** The request must name a tenant of the caller's (any role): handlers then have `c.var.tenant`. */
export function requireTenant(): MiddlewareHandler<TenantEnv> {
  return async (c, next) => {
    if (!c.var.tenant) return fail('bad-request', 'Header tenantId is required.');
    await next();
  };
}

/**
 * A policy check from the role table; it needs a tenant, since roles belong to a tenant. The
 * refusal is recorded with every other one (recordRefusal), naming the policy checked here.
 */
export function requirePolicy(resource: Resource, action: Action): MiddlewareHandler<TenantEnv> {
  return async (c, next) => {
    if (!c.var.tenant) return fail('bad-request', 'Header tenantId is required.');
    if (!can(c.var.caller.policies, resource, action)) {
      c.set('refusedPolicy', { resource, action });
      return fail('forbidden', `You need ${resource} ${action} permission.`);
    }
    await next();
  };
}

/** Refusals of one user at one endpoint in one minute beyond this are answered 429 instead of 403. */
export const REFUSALS_PER_MINUTE = 30;

/**
 * Every 403 a signed-in caller gets in a tenant becomes a 'permission.refused' event in that
 * tenant's activity history: a policy check's (requirePolicy) and a service's own checks alike,
 * since the error handling calls this for each one (server/http/problem.ts). Refusals of the same
 * user at the same endpoint within a minute are one event with a count (a flood of refused requests
 * is one row, not thousands), and past REFUSALS_PER_MINUTE the request is answered 429 with
 * Retry-After, kept in PostgreSQL so every API process counts alike. Failing to write the event is
 * logged and never changes the answer, which stays a 403.
 */
export async function recordRefusal(c: Context<AppEnv>, err: DomainError): Promise<DomainError | void> {
  const { caller, tenant, refusedPolicy: policy } = c.var;
  if (!caller || !tenant) return;
  const endpoint = `${c.req.method} ${routePath(c)}`;
  const why = policy ? `it needs ${policy.resource} ${policy.action} permission` : err.detail ?? err.title;
  const now = new Date();
  const minute = now.toISOString().slice(0, 16);
  let count: number;
  try {
    count = await recordRepeatedEvent(tenant, {
      actor: { userId: caller.userId, name: caller.fullName },
      type: 'permission.refused',
      description: `${caller.fullName} was refused ${endpoint}: ${why}`,
      details: { endpoint, path: c.req.path, ...(policy ? { policy } : { reason: err.detail ?? err.title }), roles: caller.roles, minute },
      correlationId: c.var.correlationId,
      coalesceKey: `permission.refused|${caller.userId}|${endpoint}|${minute}`,
    });
  } catch (e) {
    c.var.log?.warn({ err: e, endpoint }, 'could not record a permission refusal');
    return;
  }
  if (count <= REFUSALS_PER_MINUTE) return;
  const retryAfter = 60 - now.getUTCSeconds();
  return new DomainError('too-many-requests', `Too many refused requests to ${endpoint}: try again in ${retryAfter} seconds.`, { retryAfter });
}

/** Path parameters naming the organisation must be the caller's own. */
export function requireOwnOrganization(orgIdParam: string | undefined, caller: Caller): void {
  if (orgIdParam !== caller.organizationId) fail('forbidden', 'This is not your organisation.');
}
