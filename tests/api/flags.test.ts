/**
 * Feature flags over HTTP: the Flipt-compatible snapshot (authentication, tenant scoping, strong
 * ETag, 304, default and unknown namespaces, Flipt's own client reading it) and the
 * administration API (access per role, validation of bodies).
 */
import { FliptClient } from '@flipt-io/flipt-client-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formulaRequest, formulaRuleIds, withFormulaRuleIds } from '../../src/domain/flags/customRouting.ts';
import { type FlagDefinition, type StoredFlag } from '../../src/domain/flags/definitions.ts';
import { createFlagEvaluator } from '../../src/domain/flags/evaluator.ts';
import { CUSTOM_ROUTING_FLAG, parseFlagSnapshot, type FlagSnapshot } from '../../src/domain/flags/snapshot.ts';
import { DEMO_USERS } from '../../server/db/seed.ts';
import { FlagFetchError, fetchFlagSnapshot } from '../../src/services/flags.ts';
import { setIdentitySource } from '../../src/services/gateway.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const SNAPSHOT = '/internal/v1/evaluation/snapshot/namespace';
const ADMIN = '/web-api/v1/flags';

let server: TestServer;
let base: string;
let admin: Session;
let foodBank: string;
let youthArts: string;

const emailOf = (role: string) => DEMO_USERS.find((u) => u.roles[0]?.[0] === role)!.email;

async function tenantsOf(s: Session): Promise<{ tenantId: string; name: string }[]> {
  const res = await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers });
  return ((await res.json()) as { tenants: { tenantId: string; name: string }[] }).tenants;
}

const as = (s: Session, tenantId: string | null, extra: Record<string, string> = {}) =>
  ({ ...s.headers, ...(tenantId ? { tenantId } : {}), ...extra });

async function snapshot(s: Session, tenantId: string, namespace = 'default', extra: Record<string, string> = {}) {
  return call(base, `${SNAPSHOT}/${namespace}`, { headers: as(s, tenantId, extra) });
}

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  admin = await sessionFor(base, emailOf('Administrator'));
  const tenants = await tenantsOf(admin);
  foodBank = tenants.find((t) => t.name === 'Riverside Food Bank')!.tenantId;
  youthArts = tenants.find((t) => t.name === 'Riverside Youth Arts')!.tenantId;
});
afterAll(async () => { await server?.close(); });

describe('the flag snapshot', () => {
  it('serves the default namespace in Flipt\'s shape, with the seeded custom-routing flag off by default', async () => {
    const res = await snapshot(admin, foodBank);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await res.json() as FlagSnapshot;
    expect(body.namespace).toEqual({ key: 'default' });
    const flag = body.flags.find((f) => f.key === CUSTOM_ROUTING_FLAG)!;
    expect(flag).toMatchObject({ key: 'custom-routing', name: 'Custom routing', type: 'BOOLEAN_FLAG_TYPE', enabled: false });
    expect(flag.rollouts![0]).toMatchObject({
      type: 'SEGMENT_ROLLOUT_TYPE',
      segment: {
        value: true, segmentOperator: 'OR_SEGMENT_OPERATOR',
        segments: [{ matchType: 'ALL_SEGMENT_MATCH_TYPE', constraints: [{ type: 'STRING_CONSTRAINT_COMPARISON_TYPE', property: 'formulaId', operator: 'isoneof' }] }],
      },
    });
    // off for a formula the rule does not name
    const evaluator = createFlagEvaluator(parseFlagSnapshot(body, 'default'));
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, crypto.randomUUID())).enabled).toBe(false);
  });

  it('has a strong ETag, the same for the same flags', async () => {
    const a = await snapshot(admin, foodBank);
    const b = await snapshot(admin, foodBank);
    const etag = a.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/); // strong: no W/ prefix
    expect(b.headers.get('etag')).toBe(etag);
    expect(await a.text()).toBe(await b.text());
  });

  it('answers If-None-Match with 304 and the ETag, and a changed tag with the snapshot', async () => {
    const etag = (await snapshot(admin, foodBank)).headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await snapshot(admin, foodBank, 'default', { 'if-none-match': ifNoneMatch });
      expect(res.status, ifNoneMatch).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(await res.text()).toBe('');
    }
    const res = await snapshot(admin, foodBank, 'default', { 'if-none-match': '"something-else"' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etag);
  });

  it('accepts the optional reference query and answers the same snapshot', async () => {
    const plain = await snapshot(admin, foodBank);
    const res = await call(base, `${SNAPSHOT}/default?reference=main`, { headers: as(admin, foodBank) });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(plain.headers.get('etag'));
  });

  it('answers an unknown namespace with an empty snapshot, and refuses a malformed one', async () => {
    const res = await snapshot(admin, foodBank, 'marketing');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ namespace: { key: 'marketing' }, flags: [] });
    const bad = await snapshot(admin, foodBank, encodeURIComponent('no spaces<b>'));
    expect(bad.status).toBe(400);
    expect(await bad.text()).not.toContain('<b>');
  });

  it('needs authentication and a tenant the caller belongs to', async () => {
    expect((await call(base, `${SNAPSHOT}/default`)).status).toBe(401);
    const noTenant = await snapshot(admin, '');
    expect(noTenant.status).toBe(400);
    expect(await noTenant.json()).toMatchObject({ title: 'bad-request' });
    const producer = await sessionFor(base, emailOf('Formula Producer'));
    expect((await snapshot(producer, foodBank)).status).toBe(200); // every member reads the flags
    const foreign = await snapshot(producer, youthArts); // not a member of Youth Arts
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ title: 'no-tenant-access' });
  });

  it('is read by Flipt\'s own client, which refreshes with If-None-Match and keeps its state on 304', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const seen: { ifNoneMatch: string | null; status: number }[] = [];
    const client = await FliptClient.init({
      namespace: 'default',
      fetcher: async (opts) => {
        const headers: Record<string, string> = as(admin, foodBank, opts?.etag ? { 'if-none-match': opts.etag } : {});
        const res = await call(base, `${SNAPSHOT}/default`, { headers });
        seen.push({ ifNoneMatch: headers['if-none-match'] ?? null, status: res.status });
        return res;
      },
    });
    expect(client.listFlags().map((f) => f.key)).toContain(CUSTOM_ROUTING_FLAG);
    expect(await client.refresh()).toBe(false);
    expect(seen).toEqual([{ ifNoneMatch: null, status: 200 }, { ifNoneMatch: expect.stringMatching(/^"/), status: 304 }]);
    expect(client.evaluateBoolean({ flagKey: CUSTOM_ROUTING_FLAG, entityId: 'any-formula', context: { formulaId: 'any-formula' } }).enabled).toBe(false);
    warn.mockRestore();
  });
});

describe('administering flags', () => {
  const booleanFlag = (enabled: boolean): FlagDefinition => ({
    name: 'Beta dashboard', description: 'A test flag', type: 'BOOLEAN_FLAG_TYPE', enabled,
    rollouts: [{ threshold: { percentage: 25, value: true } }], variants: [], rules: [], defaultVariant: null,
  });

  it('lets an Administrator turn custom-routing on for chosen formulas, in one tenant only', async () => {
    const before = await snapshot(admin, youthArts);
    const list = await call(base, ADMIN, { headers: as(admin, foodBank) });
    expect(list.status).toBe(200);
    const { flags } = await list.json() as { namespace: string; flags: StoredFlag[] };
    const current = flags.find((f) => f.key === CUSTOM_ROUTING_FLAG)!;
    expect(formulaRuleIds(current)).toEqual([]);

    const chosen = [crypto.randomUUID(), crypto.randomUUID()];
    const { key: _k, namespace: _n, createdOn: _c, updatedOn: _u, ...definition } = current;
    const put = await call(base, `${ADMIN}/${CUSTOM_ROUTING_FLAG}`, { method: 'PUT', headers: as(admin, foodBank), body: withFormulaRuleIds(definition, chosen) });
    expect(put.status).toBe(200);
    expect(formulaRuleIds(await put.json() as StoredFlag)).toEqual(chosen);

    const evaluator = createFlagEvaluator(parseFlagSnapshot(await (await snapshot(admin, foodBank)).json(), 'default'));
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, chosen[0]!)).enabled).toBe(true);
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, chosen[1]!)).enabled).toBe(true);
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, crypto.randomUUID())).enabled).toBe(false);

    // the other tenant's flags did not move
    const after = await snapshot(admin, youthArts);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  it('changes the ETag when a flag changes, and switches enabled with PATCH', async () => {
    const etag = (await snapshot(admin, foodBank)).headers.get('etag');
    const patch = await call(base, `${ADMIN}/${CUSTOM_ROUTING_FLAG}`, { method: 'PATCH', headers: as(admin, foodBank), body: { enabled: true } });
    expect(patch.status).toBe(200);
    expect((await patch.json() as StoredFlag).enabled).toBe(true);
    const res = await snapshot(admin, foodBank, 'default', { 'if-none-match': etag! });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).not.toBe(etag);
    const evaluator = createFlagEvaluator(parseFlagSnapshot(await res.json(), 'default'));
    // on a boolean flag enabled is the default value: now on for every formula
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, crypto.randomUUID())).enabled).toBe(true);
    await call(base, `${ADMIN}/${CUSTOM_ROUTING_FLAG}`, { method: 'PATCH', headers: as(admin, foodBank), body: { enabled: false } });
  });

  it('creates (201), replaces (200), reads, lists in a namespace and deletes a flag', async () => {
    const put = await call(base, `${ADMIN}/beta-dashboard`, { method: 'PUT', headers: as(admin, foodBank), body: booleanFlag(false) });
    expect(put.status).toBe(201);
    expect(await put.json()).toMatchObject({ key: 'beta-dashboard', namespace: 'default', enabled: false });
    expect((await call(base, `${ADMIN}/beta-dashboard`, { method: 'PUT', headers: as(admin, foodBank), body: booleanFlag(true) })).status).toBe(200);
    expect(await (await call(base, `${ADMIN}/beta-dashboard`, { headers: as(admin, foodBank) })).json()).toMatchObject({ enabled: true });

    const variant: FlagDefinition = {
      name: 'Colour', description: '', type: 'VARIANT_FLAG_TYPE', enabled: true, rollouts: [], defaultVariant: 'grey',
      variants: [{ key: 'blue', name: 'Blue', attachment: '{"hex":"#00f"}' }, { key: 'grey', name: 'Grey', attachment: '' }],
      rules: [{ segmentOperator: 'OR_SEGMENT_OPERATOR', segments: [{ key: 'everyone', name: '', matchType: 'ALL_SEGMENT_MATCH_TYPE', constraints: [] }], distributions: [{ variantKey: 'blue', rollout: 100 }] }],
    };
    expect((await call(base, `${ADMIN}/colour?namespace=marketing`, { method: 'PUT', headers: as(admin, foodBank), body: variant })).status).toBe(201);
    const marketing = await (await snapshot(admin, foodBank, 'marketing')).json() as FlagSnapshot;
    expect(marketing.flags.map((f) => f.key)).toEqual(['colour']);
    const answer = createFlagEvaluator(parseFlagSnapshot(marketing, 'marketing')).evaluateVariant({ flagKey: 'colour', entityId: 'x' });
    expect(answer).toMatchObject({ match: true, variantKey: 'blue', variantAttachment: '{"hex":"#00f"}' });
    const listed = await (await call(base, `${ADMIN}?namespace=marketing`, { headers: as(admin, foodBank) })).json() as { flags: StoredFlag[] };
    expect(listed.flags.map((f) => f.key)).toEqual(['colour']);

    expect((await call(base, `${ADMIN}/beta-dashboard`, { method: 'DELETE', headers: as(admin, foodBank) })).status).toBe(204);
    expect((await call(base, `${ADMIN}/beta-dashboard`, { method: 'DELETE', headers: as(admin, foodBank) })).status).toBe(404);
    const missing = await call(base, `${ADMIN}/beta-dashboard`, { headers: as(admin, foodBank) });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ title: 'not-found' });
    expect((await call(base, `${ADMIN}/nope`, { method: 'PATCH', headers: as(admin, foodBank), body: { enabled: true } })).status).toBe(404);
  });

  it('is for Administrators only: every other role is refused', async () => {
    for (const role of ['Power User', 'Connection Manager', 'Formula Producer', 'Data Processor', 'User Manager', 'View Only']) {
      const s = await sessionFor(base, emailOf(role));
      const list = await call(base, ADMIN, { headers: as(s, foodBank) });
      expect(list.status, role).toBe(403);
      expect(await list.json()).toMatchObject({ title: 'forbidden' });
      const put = await call(base, `${ADMIN}/x`, { method: 'PUT', headers: as(s, foodBank), body: booleanFlag(true) });
      expect(put.status, role).toBe(403);
      expect((await call(base, `${ADMIN}/${CUSTOM_ROUTING_FLAG}`, { method: 'DELETE', headers: as(s, foodBank) })).status, role).toBe(403);
    }
    expect((await call(base, ADMIN)).status).toBe(401);
    expect((await call(base, ADMIN, { headers: as(admin, null) })).status).toBe(400); // flags belong to a tenant
  });

  it('refuses invalid bodies and keys without echoing them', async () => {
    const put = (body: unknown, key = 'x', headers: Record<string, string> = {}) =>
      call(base, `${ADMIN}/${key}`, { method: 'PUT', headers: as(admin, foodBank, headers), body });
    const cases: [string, unknown][] = [
      ['not an object', [1, 2]],
      ['no name', { ...booleanFlag(true), name: '' }],
      ['unknown type', { ...booleanFlag(true), type: 'OTHER_FLAG_TYPE' }],
      ['enabled not boolean', { ...booleanFlag(true), enabled: 'yes' }],
      ['percentage over 100', { ...booleanFlag(true), rollouts: [{ threshold: { percentage: 101, value: true } }] }],
      ['operator of another type', {
        ...booleanFlag(true),
        rollouts: [{ segment: { value: true, segments: [{ key: 's', constraints: [{ type: 'NUMBER_CONSTRAINT_COMPARISON_TYPE', property: 'n', operator: 'prefix', value: '1' }] }] } }],
      }],
      ['unreadable list', {
        ...booleanFlag(true),
        rollouts: [{ segment: { value: true, segments: [{ key: 's', constraints: [{ type: 'STRING_CONSTRAINT_COMPARISON_TYPE', property: 'formulaId', operator: 'isoneof', value: '<script>' }] }] } }],
      }],
      ['boolean flag with variants', { ...booleanFlag(true), variants: [{ key: 'a' }] }],
      ['distribution of an unknown variant', {
        name: 'v', type: 'VARIANT_FLAG_TYPE', enabled: true, variants: [{ key: 'a' }],
        rules: [{ segments: [{ key: 's', constraints: [] }], distributions: [{ variantKey: 'b', rollout: 50 }] }],
      }],
      ['distributions over 100', {
        name: 'v', type: 'VARIANT_FLAG_TYPE', enabled: true, variants: [{ key: 'a' }, { key: 'b' }],
        rules: [{ segments: [{ key: 's', constraints: [] }], distributions: [{ variantKey: 'a', rollout: 60 }, { variantKey: 'b', rollout: 60 }] }],
      }],
    ];
    for (const [why, body] of cases) {
      const res = await put(body);
      expect(res.status, why).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text), why).toMatchObject({ title: 'bad-request', code: 'validation-failed' });
      expect(text, why).not.toContain('<script>');
    }
    const malformed = await put('{"name":', 'x');
    expect(malformed.status).toBe(400);
    const wrongType = await call(base, `${ADMIN}/x`, { method: 'PUT', headers: as(admin, foodBank, { 'content-type': 'text/plain' }), body: 'enabled' });
    expect(wrongType.status).toBe(415);
    const badKey = await put(booleanFlag(true), encodeURIComponent('no spaces<script>'));
    expect(badKey.status).toBe(400);
    expect(await badKey.text()).not.toContain('<script>');
    const badPatch = await call(base, `${ADMIN}/${CUSTOM_ROUTING_FLAG}`, { method: 'PATCH', headers: as(admin, foodBank), body: { enabled: 'on' } });
    expect(badPatch.status).toBe(400);
  });
});

describe('the browser\'s flag service against the server', () => {
  it('fetches, sends If-None-Match, reads 304, and words failures with the status text', async () => {
    // the browser resolves the same-origin path; here the test server's origin stands in for it
    const RealRequest = globalThis.Request;
    vi.stubGlobal('Request', class extends RealRequest {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(typeof input === 'string' && input.startsWith('/') ? `${base}${input}` : input, init);
      }
    });
    let tenantId: string | null = foodBank;
    setIdentitySource(async () => ({
      token: admin.tokens.access_token, orgId: admin.orgId, clientId: 'tributary-app', userId: admin.auth0Id, userEmail: admin.email, tenantId,
    }));
    try {
      const first = await fetchFlagSnapshot();
      expect(first.status).toBe('fetched');
      if (first.status !== 'fetched') return;
      expect(first.snapshot.flags.map((f) => f.key)).toContain(CUSTOM_ROUTING_FLAG);
      expect(first.etag).toMatch(/^"/);
      expect(await fetchFlagSnapshot({ etag: first.etag })).toEqual({ status: 'not-modified' });
      expect((await fetchFlagSnapshot({ etag: '"stale"' })).status).toBe('fetched');

      tenantId = null; // no tenant: the server refuses with 400
      const failure = await fetchFlagSnapshot().catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(FlagFetchError);
      expect((failure as FlagFetchError).message).toBe('Failed to fetch data: Bad Request');
      setIdentitySource(null); // signed out: refused before any request
      expect(((await fetchFlagSnapshot().catch((e: unknown) => e)) as Error).message).toBe('Failed to fetch data: Unauthorized');
    } finally {
      setIdentitySource(null);
      vi.unstubAllGlobals();
    }
  });
});
