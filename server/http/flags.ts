/**
 * Feature flags (DESIGN.md section 8).
 *
 * The snapshot: GET /internal/v1/evaluation/snapshot/namespace/{namespace}[?reference=...], the
 * route and body of Flipt's client-side evaluation API, so @flipt-io/flipt-client-js (or our own
 * evaluator) can read it and a real Flipt server can replace ours. Flags belong to a tenant: the
 * caller is authenticated like every gateway call and gets the flags of the tenant its tenantId
 * header names. The ETag is strong (a hash of the exact body); If-None-Match is answered 304 with
 * the ETag. An unknown namespace answers an empty snapshot, as Flipt's database backend does.
 * `reference` is accepted and ignored: flags stored in PostgreSQL have one live version.
 *
 * Administration: /web-api/v1/flags, for the `flags` policy (view, edit, delete; only
 * Administrators have it), one tenant at a time.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { DEFAULT_FLAG_NAMESPACE, FLIPT_KEY, FlagDefinitionSchema, FlagEnabledSchema, MAX_KEY_LENGTH } from '../../src/domain/flags.ts';
import type { Db } from '../db/database.ts';
import { deleteFlag, flagSnapshot, getFlag, listFlags, putFlag, setFlagEnabled } from '../db/flags.ts';
import { authenticate, requirePolicy, type TokenVerifier } from './auth.ts';
import type { AppEnv } from './env.ts';
import { fail } from './problem.ts';
import { jsonBody } from './validation.ts';

const MAX_REFERENCE_LENGTH = 256;

function checkKey(value: string | undefined, what: string): string {
  if (!value || value.length > MAX_KEY_LENGTH || !FLIPT_KEY.test(value)) {
    return fail(400, 'bad-request', `${what} may contain only letters, digits, dashes, underscores and commas (${MAX_KEY_LENGTH} at most).`);
  }
  return value;
}

function requireTenant(tenantId: string | null): string {
  if (!tenantId) return fail(400, 'bad-request', 'Header tenantId is required: flags belong to a tenant.');
  return tenantId;
}

/** A strong validator: the same bytes always give the same tag, different bytes a different one. */
export const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url')}"`;

/** If-None-Match uses the weak comparison (RFC 9110 section 13.1.2); `*` matches any current representation. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

export function flagSnapshotRouter(db: Db, verifier: TokenVerifier) {
  const app = new Hono<AppEnv>();
  app.use('*', authenticate(db, verifier));

  app.get('/namespace/:namespace', async (c) => {
    const namespace = checkKey(c.req.param('namespace'), 'A namespace key');
    const reference = c.req.query('reference');
    if (reference !== undefined && reference.length > MAX_REFERENCE_LENGTH) fail(400, 'bad-request', 'A reference can be 256 characters at most.');
    const tenantId = requireTenant(c.var.caller.tenantId);

    const body = JSON.stringify(await flagSnapshot(db, tenantId, namespace));
    const etag = etagOf(body);
    c.header('ETag', etag);
    c.header('Vary', 'Authorization, tenantId');
    if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
  });

  return app;
}

export function flagAdminRouter(db: Db, verifier: TokenVerifier) {
  const app = new Hono<AppEnv>();
  app.use('*', authenticate(db, verifier));

  const namespaceOf = (query: string | undefined) => (query === undefined ? DEFAULT_FLAG_NAMESPACE : checkKey(query, 'A namespace key'));

  app.get('/', requirePolicy('flags', 'view'), async (c) => {
    const namespace = namespaceOf(c.req.query('namespace'));
    return c.json({ namespace, flags: await listFlags(db, c.var.caller.tenantId!, namespace) });
  });

  app.get('/:key', requirePolicy('flags', 'view'), async (c) => {
    const key = checkKey(c.req.param('key'), 'A flag key');
    const flag = await getFlag(db, c.var.caller.tenantId!, namespaceOf(c.req.query('namespace')), key);
    if (!flag) return fail(404, 'not-found', 'No such flag.');
    return c.json(flag);
  });

  /** Creates or replaces a flag with a whole definition. */
  app.put('/:key', requirePolicy('flags', 'edit'), jsonBody(FlagDefinitionSchema), async (c) => {
    const key = checkKey(c.req.param('key'), 'A flag key');
    const { flag, created } = await putFlag(db, c.var.caller.tenantId!, namespaceOf(c.req.query('namespace')), key, c.req.valid('json'));
    c.var.log.info({ flag: key, created, enabled: flag.enabled }, 'flag saved');
    return c.json(flag, created ? 201 : 200);
  });

  /** Turns a flag's enabled switch (for a boolean flag: its default value). */
  app.patch('/:key', requirePolicy('flags', 'edit'), jsonBody(FlagEnabledSchema), async (c) => {
    const key = checkKey(c.req.param('key'), 'A flag key');
    const flag = await setFlagEnabled(db, c.var.caller.tenantId!, namespaceOf(c.req.query('namespace')), key, c.req.valid('json').enabled);
    if (!flag) return fail(404, 'not-found', 'No such flag.');
    c.var.log.info({ flag: key, enabled: flag.enabled }, 'flag switched');
    return c.json(flag);
  });

  app.delete('/:key', requirePolicy('flags', 'delete'), async (c) => {
    const key = checkKey(c.req.param('key'), 'A flag key');
    if (!(await deleteFlag(db, c.var.caller.tenantId!, namespaceOf(c.req.query('namespace')), key))) return fail(404, 'not-found', 'No such flag.');
    return c.body(null, 204);
  });

  return app;
}
