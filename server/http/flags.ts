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
import { flagAdminService, flagSnapshotService } from '../../src/domain/api/flags.ts';
import { DEFAULT_FLAG_NAMESPACE, FLIPT_KEY, MAX_KEY_LENGTH } from '../../src/domain/flags/snapshot.ts';
import type { Auth } from './auth.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

const MAX_REFERENCE_LENGTH = 256;

function checkKey(value: string | undefined, what: string): string {
  if (!value || value.length > MAX_KEY_LENGTH || !FLIPT_KEY.test(value)) {
    return fail('bad-request', `${what} may contain only letters, digits, dashes, underscores and commas (${MAX_KEY_LENGTH} at most).`);
  }
  return value;
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

export function flagSnapshotRouter(auth: Auth) {
  const { app, on } = contractRouter(auth);
  const api = flagSnapshotService.endpoints;

  // flags belong to a tenant: any member of it may read them
  on(api.snapshot, async (c, { params, query: { reference } }) => {
    const namespace = checkKey(params.namespace, 'A namespace key');
    if (reference !== undefined && reference.length > MAX_REFERENCE_LENGTH) fail('bad-request', 'A reference can be 256 characters at most.');
    const body = JSON.stringify(await c.var.tenant.flags.snapshot(namespace));
    const etag = etagOf(body);
    c.header('ETag', etag);
    c.header('Vary', 'Authorization, tenantId');
    if (ifNoneMatchHits(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.body(body, 200, { 'content-type': 'application/json; charset=utf-8' });
  });

  return app;
}

export function flagAdminRouter(auth: Auth) {
  const { app, on } = contractRouter(auth);
  const api = flagAdminService.endpoints;
  const namespaceOf = (query: string | undefined) => (query === undefined ? DEFAULT_FLAG_NAMESPACE : checkKey(query, 'A namespace key'));

  on(api.list, async (c, { query }) => {
    const namespace = namespaceOf(query.namespace);
    return { namespace, flags: await c.var.tenant.flags.list(namespace) };
  });

  on(api.get, async (c, { params, query }) => {
    const flag = await c.var.tenant.flags.get(namespaceOf(query.namespace), checkKey(params.key, 'A flag key'));
    return flag ?? fail('not-found', 'No such flag.');
  });

  /** Creates or replaces a flag with a whole definition. */
  on(api.put, async (c, { params, query, body }) => {
    const key = checkKey(params.key, 'A flag key');
    const { flag, created } = await c.var.tenant.flags.put(namespaceOf(query.namespace), key, body);
    c.var.log.info({ flag: key, created, enabled: flag.enabled }, 'flag saved');
    return created ? c.json(flag, 201) : flag;
  });

  /** Turns a flag's enabled switch (for a boolean flag: its default value). */
  on(api.setEnabled, async (c, { params, query, body }) => {
    const key = checkKey(params.key, 'A flag key');
    const flag = await c.var.tenant.flags.setEnabled(namespaceOf(query.namespace), key, body.enabled);
    if (!flag) return fail('not-found', 'No such flag.');
    c.var.log.info({ flag: key, enabled: flag.enabled }, 'flag switched');
    return flag;
  });

  on(api.remove, async (c, { params, query }) => {
    const key = checkKey(params.key, 'A flag key');
    if (!(await c.var.tenant.flags.remove(namespaceOf(query.namespace), key))) return fail('not-found', 'No such flag.');
  });

  return app;
}
