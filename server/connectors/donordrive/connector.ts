/**
 * DonorDrive as a source, on the connector kit: the Public API (github.com/DonorDrive/PublicAPI)
 * at the organization's own site (https://yourorg.donordrive.com/api, or its custom domain),
 * version 1.1 asked for by query (`version=1.1`). The Public API is read-only and open; the API
 * token, when given, goes as a bearer token. Lists are arrays paged with `limit` (100 at most)
 * and `offset`, sorted with `orderBy` and filtered with a SQL-like `where`.
 *
 * Source: events (all, each run), and donations, participants and teams created since the
 * watermark (`where=createdDateUTC > '…'`, oldest first): the Public API has no modification
 * date to filter on, so a change to a record already read is not read again. Donations are read
 * event by event (`/api/events/{eventID}/donations`), or for the one event of the formula's
 * settings. A donation carries the donor's display name (split into first and last) and its
 * amount; the Public API gives no e-mail address, and a donor who asked for privacy has neither
 * name nor amount. Incentives, badges and milestones are not read yet.
 */
import { createHash } from 'node:crypto';
import { donordrive } from '../../../src/domain/connectors/fundraising.ts';
import { ConnectorInputError, processingError, refused, sourceOnly, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord } from '../connector.ts';
import { laterStamp, positionSince, type PullPosition } from '../kit/paging.ts';
import { sharedPacer } from '../kit/pace.ts';
import { vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { isoStamp } from '../kit/values.ts';

const NAME = 'DonorDrive';
export const DONORDRIVE_VERSION = '1.1';
/** records a page: the Public API's most (more is a 400) */
export const DONORDRIVE_PAGE = 100;
/** DonorDrive asks integrations to go easy on its Public API; a few calls a second at most */
const CALLS_PER_SECOND = 4;

const OBJECTS = ['events', 'participants', 'teams', 'donations'] as const;
type DdObject = (typeof OBJECTS)[number];

function objectOf(object: string): DdObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as DdObject;
  throw new ConnectorInputError(`Tributary reads DonorDrive events, participants, teams and donations; ${object} is not one of them yet.`);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const clean = (fields: Obj): Obj => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));

export function donordriveBase(settings: Record<string, string>): string {
  // trailing slashes dropped one by one: /\/+$/ backtracks quadratically on a long run of them
  let site = (settings.siteUrl ?? '').trim();
  while (site.endsWith('/')) site = site.slice(0, -1);
  if (!/^https?:\/\//.test(site)) throw refused('DonorDrive needs your site URL, such as https://yourorg.donordrive.com.');
  return site;
}

/** DonorDrive's words: its `message`, else its `error`. */
export function donordriveMessageOf(body: unknown): string {
  const o = obj(Array.isArray(body) ? body[0] : body);
  for (const k of ['message', 'error', 'detail']) if (typeof o[k] === 'string') return (o[k] as string).slice(0, 500);
  return '';
}

export function donordriveClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  const base = donordriveBase(ctx.settings);
  const token = (ctx.settings.apiToken ?? '').trim();
  return vendorClient({
    system: 'donordrive', name: NAME, baseUrl: base, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`donordrive:${createHash('sha256').update(base).digest('hex')}`, CALLS_PER_SECOND),
    credential: 'API token',
    auth: async (): Promise<Record<string, string>> => (token ? { authorization: `Bearer ${token}` } : {}),
    messageOf: donordriveMessageOf,
  });
}


/** "Ada King Lovelace" → first "Ada King", last "Lovelace". */
function nameParts(name: unknown): { first?: string; last?: string } {
  const words = typeof name === 'string' ? name.trim().split(/\s+/).filter(Boolean) : [];
  if (!words.length) return {};
  if (words.length === 1) return { last: words[0] };
  return { first: words.slice(0, -1).join(' '), last: words.at(-1) };
}

const amount = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Number(v.toFixed(2)) : undefined);

function donationRecord(d: Obj): SourceRecord {
  const { first, last } = nameParts(d.displayName);
  return {
    id: String(d.donationID),
    fields: clean({
      donationID: d.donationID, created: isoStamp(d.createdDateUTC), date: isoStamp(d.createdDateUTC)?.slice(0, 10), amount: amount(d.amount),
      displayName: d.displayName, first_name: first, last_name: last, donorID: d.donorID, message: d.message,
      eventID: d.eventID, participantID: d.participantID, teamID: d.teamID, incentiveID: d.incentiveID, receipt: obj(d.links).receipt,
    }),
  };
}

function participantRecord(p: Obj): SourceRecord {
  const { first, last } = nameParts(p.displayName);
  return {
    id: String(p.participantID),
    fields: clean({
      participantID: p.participantID, displayName: p.displayName, first_name: first, last_name: last, created: isoStamp(p.createdDateUTC),
      eventID: p.eventID, eventName: p.eventName, teamID: p.teamID, teamName: p.teamName, isTeamCaptain: p.isTeamCaptain, role: p.role,
      fundraisingGoal: amount(p.fundraisingGoal), sumDonations: amount(p.sumDonations), numDonations: p.numDonations, page: obj(p.links).page,
    }),
  };
}

function teamRecord(t: Obj): SourceRecord {
  return {
    id: String(t.teamID),
    fields: clean({
      teamID: t.teamID, name: t.name, created: isoStamp(t.createdDateUTC), eventID: t.eventID, eventName: t.eventName, captainDisplayName: t.captainDisplayName,
      fundraisingGoal: amount(t.fundraisingGoal), sumDonations: amount(t.sumDonations), numDonations: t.numDonations, numParticipants: t.numParticipants, page: obj(t.links).page,
    }),
  };
}

function eventRecord(e: Obj): SourceRecord {
  return {
    id: String(e.eventID),
    fields: clean({
      eventID: e.eventID, name: e.name, type: e.type, startDateUTC: isoStamp(e.startDateUTC), endDateUTC: isoStamp(e.endDateUTC), timezone: e.timezone,
      city: e.city, province: e.province, country: e.country, fundraisingGoal: amount(e.fundraisingGoal), sumDonations: amount(e.sumDonations), numDonations: e.numDonations,
      numParticipants: e.numParticipants, numTeams: e.numTeams,
    }),
  };
}

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });

export const DONORDRIVE_FIELDS: Record<DdObject, FieldInfo[]> = {
  donations: [
    ro('donationID', 'Donation ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('amount', 'Amount', 'number'),
    ro('displayName', 'Donor name'), ro('first_name', 'Donor first name'), ro('last_name', 'Donor last name'), ro('donorID', 'Donor ID'), ro('message', 'Message'),
    ro('eventID', 'Event ID'), ro('participantID', 'Participant ID'), ro('teamID', 'Team ID'), ro('incentiveID', 'Incentive ID'), ro('receipt', 'Receipt URL'),
  ],
  participants: [
    ro('participantID', 'Participant ID'), ro('displayName', 'Name'), ro('first_name', 'First name'), ro('last_name', 'Last name'), ro('created', 'Created', 'datetime'),
    ro('eventID', 'Event ID'), ro('eventName', 'Event'), ro('teamID', 'Team ID'), ro('teamName', 'Team'), ro('isTeamCaptain', 'Team captain', 'boolean'), ro('role', 'Role'),
    ro('fundraisingGoal', 'Fundraising goal', 'number'), ro('sumDonations', 'Raised', 'number'), ro('numDonations', 'Donations', 'number'), ro('page', 'Fundraising page'),
  ],
  teams: [
    ro('teamID', 'Team ID'), ro('name', 'Name'), ro('created', 'Created', 'datetime'), ro('eventID', 'Event ID'), ro('eventName', 'Event'), ro('captainDisplayName', 'Captain'),
    ro('fundraisingGoal', 'Fundraising goal', 'number'), ro('sumDonations', 'Raised', 'number'), ro('numDonations', 'Donations', 'number'), ro('numParticipants', 'Participants', 'number'),
    ro('page', 'Fundraising page'),
  ],
  events: [
    ro('eventID', 'Event ID'), ro('name', 'Name'), ro('type', 'Type'), ro('startDateUTC', 'Starts', 'datetime'), ro('endDateUTC', 'Ends', 'datetime'), ro('timezone', 'Time zone'),
    ro('city', 'City'), ro('province', 'State or province'), ro('country', 'Country'), ro('fundraisingGoal', 'Fundraising goal', 'number'), ro('sumDonations', 'Raised', 'number'),
    ro('numDonations', 'Donations', 'number'), ro('numParticipants', 'Participants', 'number'), ro('numTeams', 'Teams', 'number'),
  ],
};

const RECORD: Record<DdObject, (o: Obj) => SourceRecord> = { donations: donationRecord, participants: participantRecord, teams: teamRecord, events: eventRecord };
const DATE_FIELD: Record<DdObject, string> = { donations: 'createdDateUTC', participants: 'createdDateUTC', teams: 'createdDateUTC', events: 'eventID' };
/** The where clause's date, as DonorDrive writes its own: to the millisecond, in UTC. */
const whereDate = (iso: string) => iso.replace('Z', '+0000');

async function list(client: VendorClient, path: string, offset: number, limit: number, where?: string, orderBy?: string): Promise<Obj[]> {
  const rows = await client.call<unknown>({ path, query: { version: DONORDRIVE_VERSION, limit, offset, where, orderBy } });
  // an offset past the end is 204, no content
  if (rows === null) return [];
  if (!Array.isArray(rows)) throw processingError(`DonorDrive answered ${path} with something other than a list; check the site URL.`);
  return rows.map(obj);
}

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined, endSettings: Record<string, string>): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const client = donordriveClient(ctx);
  const limit = Math.max(1, Math.min(options?.batchSize ?? DONORDRIVE_PAGE, DONORDRIVE_PAGE));
  if (which === 'events') {
    for (let offset = 0; ;) {
      const rows = await list(client, '/api/events', offset, limit, undefined, 'eventID ASC');
      offset += rows.length;
      const more = rows.length === limit;
      yield { records: rows.map(eventRecord), watermark: null };
      if (!more) return;
    }
  }
  const at = positionSince(since);
  const from = at.since ?? (options?.window ? options.window.from.toISOString() : null);
  let latest = at.latest;
  const where = from ? `${DATE_FIELD[which]} > '${whereDate(from)}'` : undefined;
  const orderBy = `${DATE_FIELD[which]} ASC`;
  const eventId = (endSettings.eventId ?? '').trim();
  // the lists read: the site's, or each event's donations ("event:offset" is the position)
  let paths: { key: string; path: string }[];
  if (which !== 'donations') {
    paths = [{ key: '', path: eventId ? `/api/events/${encodeURIComponent(eventId)}/${which}` : `/api/${which}` }];
  } else if (eventId) {
    paths = [{ key: eventId, path: `/api/events/${encodeURIComponent(eventId)}/donations` }];
  } else {
    const events: Obj[] = [];
    for (let offset = 0; ;) {
      const rows = await list(client, '/api/events', offset, DONORDRIVE_PAGE, undefined, 'eventID ASC');
      events.push(...rows);
      offset += rows.length;
      if (rows.length < DONORDRIVE_PAGE) break;
    }
    paths = events.map((e) => ({ key: String(e.eventID), path: `/api/events/${encodeURIComponent(String(e.eventID))}/donations` }));
  }
  const [startKey, startOffset] = (at.next ?? '').includes(':') ? [at.next!.slice(0, at.next!.lastIndexOf(':')), Number(at.next!.slice(at.next!.lastIndexOf(':') + 1))] : [null, 0];
  let start = startKey === null ? 0 : paths.findIndex((p) => p.key === startKey);
  // the event of the position is gone: its donations were read up to there, the rest from the next
  if (start < 0) start = 0;
  if (!paths.length) { yield { records: [], watermark: JSON.stringify({ since: from, next: null, latest: null } satisfies PullPosition) }; return; }
  for (let i = start; i < paths.length; i++) {
    for (let offset = i === start ? startOffset : 0; ;) {
      const rows = await list(client, paths[i]!.path, offset, limit, where, orderBy);
      offset += rows.length;
      for (const r of rows) latest = laterStamp(latest, isoStamp(r.createdDateUTC));
      const more = rows.length === limit;
      const next = more ? `${paths[i]!.key}:${offset}` : i + 1 < paths.length ? `${paths[i + 1]!.key}:0` : null;
      const position: PullPosition = next ? { since: from, next, latest } : { since: latest ?? from, next: null, latest: null };
      yield { records: rows.map((r) => RECORD[which](r)), watermark: JSON.stringify(position) };
      if (!more) break;
    }
  }
}

export const donordriveConnector: Connector = {
  system: 'donordrive',
  async test(ctx) {
    const rows = await list(donordriveClient(ctx), '/api/events', 0, 1);
    if (!Array.isArray(rows)) throw processingError('DonorDrive did not answer with a list of events; check the site URL.');
    return { detail: `DonorDrive at ${new URL(donordriveBase(ctx.settings)).host} answered with its events.` };
  },
  async listObjects() {
    return donordrive.objects;
  },
  async describeFields(_ctx, object) {
    return DONORDRIVE_FIELDS[objectOf(object)];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options, options?.settings ?? {}),
  ...sourceOnly('DonorDrive'),
};
