/**
 * EveryAction people and contributions through the connector kit, against the local fake
 * (tests/support/vendors/everyaction.ts): our requests as VAN documents them (HTTP Basic with the
 * database mode, changed-entity export jobs polled and their CSV files read, find, findOrCreate,
 * contributions) and its documented answers parsed (jobs, files in pieces, 302/404 of a find, error
 * bodies), a 429 in the middle, and the Voter File mode honoured.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { everyactionConnector } from '../../server/connectors/everyaction/connector.ts';
import { JOB_POLL } from '../../server/connectors/kit/exportJob.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { startFakeEveryAction, VAN_APP, VAN_KEY, type FakeEveryAction } from '../support/vendors/everyaction.ts';
import { pullAll } from '../support/connectorContext.ts';

let van: FakeEveryAction;
let vendor: VendorFakeSetup<FakeEveryAction>;

beforeAll(async () => {
  vendor = await withVendorFake('everyaction', startFakeEveryAction);
  van = vendor.fake;
  JOB_POLL.firstMs = 5;
});
afterAll(async () => {
  await vendor?.close();
});

const ctx = (settings: Record<string, string> = {}): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings: { applicationName: VAN_APP, apiKey: VAN_KEY, databaseMode: '1', ...settings }, dataDir: '/tmp' });
const all = pullAll;
const DAY = 86_400_000;

beforeEach(() => {
  van.seen.length = 0;
  van.people.clear();
  van.contributions.clear();
  van.fileRows = 1000;
});

describe('signing in', () => {
  it('HTTP Basic with the application name and "key|mode", the connection\'s mode on every call; a refused key in words', async () => {
    await expect(everyactionConnector.test(ctx({ databaseMode: '0' }))).resolves.toEqual({ detail: 'EveryAction accepted the API key (Voter File database).' });
    expect(Buffer.from(van.seen[0]!.headers.authorization!.slice(6), 'base64').toString()).toBe(`${VAN_APP}:${VAN_KEY}|0`);
    const error = await everyactionConnector.test(ctx({ apiKey: 'nope' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionProblem);
    expect(error).toMatchObject({ message: 'EveryAction refused the application name and API key (HTTP 401).' });
    // contributions live in My Campaign only
    expect((await everyactionConnector.listObjects(ctx({ databaseMode: '0' }))).map((o) => o.name)).toEqual(['people']);
    expect((await everyactionConnector.listObjects(ctx())).map((o) => o.name)).toEqual(['people', 'contributions']);
    await expect(all(everyactionConnector.pull(ctx({ databaseMode: '0' }), 'contributions', null, {}))).rejects.toThrow('EveryAction keeps contributions in My Campaign (database mode 1); this connection uses the Voter File (mode 0).');
  });
});

describe('as a source', () => {
  it('people changed in the window through an export job: the fields VAN does not always export asked for, the job polled, its CSV files read in batches; a 429 waited out; the next pull starts where this one ended', async () => {
    for (let i = 0; i < 5; i++) van.addPerson({ firstName: `P${i}`, lastName: 'Person, Jr.', email: `p${i}@example.org`, phone: `555-010${i}`, changedAt: new Date(Date.now() - 10 * DAY + i * 60_000) });
    van.fileRows = 3;
    van.throttle(1, 0);
    const batches = await all(everyactionConnector.pull(ctx(), 'people', null, { batchSize: 2 }));
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => r.fields.Email)).toEqual([0, 1, 2, 3, 4].map((i) => `p${i}@example.org`));
    // a quoted comma read by the CSV parser, the byte-order mark gone
    expect(records[0]).toEqual({ id: String([...van.people.keys()][0]), fields: expect.objectContaining({ VanID: String([...van.people.keys()][0]), FirstName: 'P0', LastName: 'Person, Jr.', Phone: '555-0100' }) });
    const job = van.seen.find((s) => s.method === 'POST' && s.path === '/v4/changedEntityExportJobs')!;
    // core fields come anyway; the others are asked for. A first pull reaches back as far as VAN keeps changes: 90 days
    expect(job.body).toMatchObject({ resourceType: 'Contacts', requestedFields: ['Phone', 'AddressLine1', 'City', 'StateOrProvince', 'ZipOrPostal'] });
    const first = (job.body as { dateChangedFrom: string }).dateChangedFrom;
    expect(Date.now() - Date.parse(first)).toBeGreaterThan(89 * DAY);
    expect(Date.now() - Date.parse(first)).toBeLessThan(90 * DAY);
    expect(van.seen.filter((s) => /^\/v4\/changedEntityExportJobs\/\d+$/.test(s.path)).length).toBeGreaterThanOrEqual(2);
    // two files (3 rows and 2), fetched without credentials, in batches of 2
    const downloads = van.seen.filter((s) => s.path.startsWith('/exports/files/'));
    expect(downloads).toHaveLength(2);
    expect(downloads[0]!.headers.authorization).toBeUndefined();
    expect(batches.map((b) => b.records.length)).toEqual([2, 1, 2]);
    expect(JSON.parse(JSON.parse(batches[0]!.watermark!).next)).toMatchObject({ file: 0, row: 2 });
    const end = JSON.parse(batches.at(-1)!.watermark!);
    expect(end).toMatchObject({ next: null });

    // a run stopped after its first batch goes on from the row after it, in the same job
    van.seen.length = 0;
    const rest = await all(everyactionConnector.pull(ctx(), 'people', batches[0]!.watermark, { batchSize: 2 }));
    expect(rest.flatMap((b) => b.records.map((r) => r.fields.FirstName))).toEqual(['P2', 'P3', 'P4']);
    expect(van.seen.some((s) => s.method === 'POST')).toBe(false);
    // once the job's files expired, the same window is asked for again
    van.expireFiles();
    van.seen.length = 0;
    const afresh = await all(everyactionConnector.pull(ctx(), 'people', batches[0]!.watermark, { batchSize: 10 }));
    expect(afresh.flatMap((b) => b.records)).toHaveLength(5);
    // (as far back as VAN keeps changes, that moment now a little later)
    const again = (van.seen.find((s) => s.method === 'POST')!.body as { dateChangedFrom: string }).dateChangedFrom;
    expect(Date.parse(again) - Date.parse(first)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(again) - Date.parse(first)).toBeLessThan(60_000);

    van.seen.length = 0;
    van.addPerson({ firstName: 'Later', lastName: 'Person', changedAt: new Date(Date.now() + 60_000) });
    const later = await all(everyactionConnector.pull(ctx(), 'people', batches.at(-1)!.watermark, {}));
    expect(van.seen.find((s) => s.method === 'POST')!.body).toMatchObject({ dateChangedFrom: end.since });
    expect(later.flatMap((b) => b.records)).toEqual([]);
  });

  it('contributions of a run once\'s window; a job VAN refuses is said in its words', async () => {
    const p = van.addPerson({ firstName: 'Ada', lastName: 'Lovelace' });
    van.addContribution({ vanId: p.vanId, amount: 25, dateReceived: '2026-01-11', changedAt: new Date(Date.now() - 5 * DAY) });
    van.addContribution({ vanId: p.vanId, amount: 40, dateReceived: '2026-01-13', changedAt: new Date(Date.now() - 3 * DAY) });
    const window = { from: new Date(Date.now() - 4 * DAY), to: new Date(Date.now() - 2 * DAY) };
    const records = (await all(everyactionConnector.pull(ctx(), 'contributions', null, { window }))).flatMap((b) => b.records);
    expect(records).toEqual([expect.objectContaining({ fields: expect.objectContaining({ VanID: String(p.vanId), Amount: '40.00', DateReceived: '2026-01-13', PaymentType: 'Cash' }) })]);
    const fields = await everyactionConnector.describeFields(ctx(), 'contributions');
    expect(fields.find((f) => f.name === 'Amount')).toMatchObject({ type: 'number', required: true });
    expect(fields.find((f) => f.name === 'DateModified')).toMatchObject({ type: 'date', readOnly: true });
  });

  it('VAN keeps 90 days of changes: a watermark older than that starts 90 days back, a window that ended before it is refused in words, and no window reaches past now', async () => {
    van.addPerson({ firstName: 'Recent', lastName: 'Person', changedAt: new Date(Date.now() - 2 * DAY) });
    const stale = JSON.stringify({ since: new Date(Date.now() - 200 * DAY).toISOString(), next: null, latest: null });
    const records = (await all(everyactionConnector.pull(ctx(), 'people', stale, {}))).flatMap((b) => b.records);
    expect(records.map((r) => r.fields.FirstName)).toEqual(['Recent']);
    const body = van.seen.find((s) => s.method === 'POST')!.body as { dateChangedFrom: string; dateChangedTo: string };
    expect(Date.now() - Date.parse(body.dateChangedFrom)).toBeLessThan(90 * DAY);
    expect(Date.parse(body.dateChangedTo)).toBeLessThanOrEqual(Date.now());

    van.seen.length = 0;
    const old = { from: new Date(Date.now() - 120 * DAY), to: new Date(Date.now() - 100 * DAY) };
    await expect(all(everyactionConnector.pull(ctx(), 'people', null, { window: old }))).rejects.toThrow(/^EveryAction exports changes of the last 90 days only; this window ended on \d{4}-\d{2}-\d{2}\.$/);
    expect(van.seen.some((s) => s.method === 'POST')).toBe(false);

    const ahead = { from: new Date(Date.now() - DAY), to: new Date(Date.now() + 7 * DAY) };
    await all(everyactionConnector.pull(ctx(), 'people', null, { window: ahead }));
    expect(Date.parse((van.seen.find((s) => s.method === 'POST')!.body as { dateChangedTo: string }).dateChangedTo)).toBeLessThanOrEqual(Date.now());
  });
});

describe('as a destination', () => {
  it('finds people as VAN matches them (302 with the VAN ID, 404 for no one), each criterion held to the person found; other scenarios refused on save', async () => {
    const ada = van.addPerson({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@analytical.example', phone: '503-555-0101', zipOrPostalCode: '97201' });
    const [byEmail, byPhone, wrongName, none] = await everyactionConnector.searchMany!(ctx(), 'people', [
      { criteria: [{ field: 'Email', value: 'ADA@analytical.example' }] },
      { criteria: [{ field: 'FirstName', value: 'ada' }, { field: 'LastName', value: 'Lovelace' }, { field: 'Phone', value: '(503) 555-0101' }] },
      { criteria: [{ field: 'Email', value: 'ada@analytical.example' }, { field: 'LastName', value: 'Byron' }] },
      { criteria: [{ field: 'Email', value: 'nobody@example.org' }] },
    ]);
    expect(byEmail).toEqual([expect.objectContaining({ id: String(ada.vanId), fields: expect.objectContaining({ FirstName: 'Ada', ZipOrPostal: '97201' }) })]);
    expect(byPhone).toHaveLength(1);
    expect(wrongName).toEqual([]);
    expect(none).toEqual([]);
    expect(van.seen.find((s) => s.path === '/v4/people/find')!.body).toEqual({ emails: [{ email: 'ADA@analytical.example' }] });
    expect(van.seen.find((s) => s.path === `/v4/people/${ada.vanId}`)!.query).toEqual({ $expand: 'emails,phones,addresses' });
    await expect(everyactionConnector.matchingProblem!(ctx(), 'people', [{ name: 'Names', fields: ['FirstName', 'LastName'] }]))
      .resolves.toBe('EveryAction finds people by VAN ID, by e-mail, or by first and last name with a phone number or ZIP code: the scenario "Names" compares FirstName, LastName.');
    await expect(everyactionConnector.matchingProblem!(ctx(), 'people', [{ name: 'Zip', fields: ['FirstName', 'LastName', 'ZipOrPostal'] }])).resolves.toBeNull();
  });

  it('people by findOrCreate (sending one again finds it), contributions recorded for them; refusals in VAN\'s words; the Voter File creates no one', async () => {
    const known = van.addPerson({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.example' });
    const people = await everyactionConnector.upsert(ctx(), 'people', [
      { idempotencyKey: 'k', id: String(known.vanId), fields: { FirstName: 'Grace', LastName: 'Hopper', Phone: '503-555-0199' } },
      { idempotencyKey: 'n', fields: { FirstName: 'Alan', LastName: 'Turing', Email: 'alan@bletchley.example', AddressLine1: '1 Park', ZipOrPostal: '97201' } },
      { idempotencyKey: 'b', fields: { FirstName: 'Bad', LastName: 'Address', Email: 'bad@@example' } },
    ]);
    expect(people.map((r) => [r.idempotencyKey, r.outcome])).toEqual([['k', 'updated'], ['n', 'created'], ['b', 'failed']]);
    expect(people[2]!.error).toBe("EveryAction refused the person: 'bad@@example' is not a valid email address. (emails[0].email)");
    expect(van.people.get(known.vanId)).toMatchObject({ phone: '503-555-0199' });
    expect(van.seen.find((s) => s.path === '/v4/people/findOrCreate')!.body).toEqual({
      firstName: 'Alan', lastName: 'Turing', emails: [{ email: 'alan@bletchley.example' }], addresses: [{ addressLine1: '1 Park', zipOrPostalCode: '97201' }],
    });
    const again = await everyactionConnector.upsert(ctx(), 'people', [{ idempotencyKey: 'n', fields: { FirstName: 'Alan', LastName: 'Turing', Email: 'alan@bletchley.example' } }]);
    expect(again[0]).toMatchObject({ id: people[1]!.id, outcome: 'updated' });
    expect([...van.people.values()].filter((p) => p.lastName === 'Turing')).toHaveLength(1);

    const gifts = await everyactionConnector.upsert(ctx(), 'contributions', [
      { idempotencyKey: 'g1', fields: { VanID: people[1]!.id, Amount: '50', DateReceived: new Date('2026-02-01T00:00:00Z'), DesignationID: '12' } },
      { idempotencyKey: 'g2', fields: { VanID: people[1]!.id, Amount: '-5', DateReceived: '2026-02-01' } },
      { idempotencyKey: 'g3', fields: { VanID: '999999', Amount: '5', DateReceived: '2026-02-01' } },
    ]);
    expect(gifts.map((r) => r.outcome)).toEqual(['created', 'failed', 'failed']);
    expect(gifts[1]!.error).toBe("EveryAction refused the contribution: 'amount' must be greater than 0. (amount)");
    expect(gifts[2]!.error).toBe("EveryAction refused the contribution: 'contact' must be an existing person. (contact.vanId)");
    expect(van.seen.find((s) => s.path === '/v4/contributions')!.body).toEqual({
      contact: { vanId: Number(people[1]!.id) }, amount: 50, dateReceived: '2026-02-01T00:00:00.000Z', designation: { designationId: 12 }, paymentType: 'Cash',
    });
    expect(everyactionConnector.references!('contributions')).toEqual([{ field: 'VanID', object: 'people', by: 'VanID', label: 'person' }]);

    const voterFile = await everyactionConnector.upsert(ctx({ databaseMode: '0' }), 'people', [{ idempotencyKey: 'v', fields: { FirstName: 'New', LastName: 'Voter' } }]);
    expect(voterFile[0]).toMatchObject({ outcome: 'failed', error: 'EveryAction did not match the person to anyone and created no one (UnmatchedStored).' });
  });
});
