/**
 * How a password-reset link reaches its user (issue 17): e-mailed through SMTP_URL (a fake SMTP
 * server here), or made by a real Auth0 tenant's Management API (a fake of it). A mail server or
 * Auth0 that fails is 'User password has not been reset.', never a 500, and no event is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../server/config.ts';
import { auth0Tickets, embeddedByEmail, passwordResetDelivery, smtpSender, type ResetRecipient } from '../../server/identity/resetDelivery.ts';
import { DEMO_USERS } from '../../server/db/seed.ts';
import { PROBLEM_TITLES, type ProblemTitle } from '../../src/domain/errors.ts';
import { actionMessages } from '../../src/machines/userList.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startFakeAuth0, type FakeAuth0 } from '../support/fakeAuth0Management.ts';
import { readableBody, startFakeSmtp, type FakeSmtp } from '../support/fakeSmtp.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const AM = '/account-management/v1';
const FROM = 'Tributary <no-reply@tributary.test>';
let smtp: FakeSmtp;
let server: TestServer;
let base: string;
let db: pg.Client;
let manager: Session;
let foodBank: string;

const users = (s: Session, suffix = '') => `${AM}/user/organization/${s.orgId}/users${suffix}`;
const send = (path: string, method = 'GET', body?: unknown) => call(base, path, { method, headers: manager.headers, body });
const resetEvents = async (auth0Id: string) =>
  (await db.query('select details from activity_events where type = $1 and details->>\'user\' = $2', ['user.password.reset', auth0Id])).rows;

let n = 0;
async function newUser(): Promise<{ auth0Id: string; email: string; fullName: string }> {
  n += 1;
  const res = await send(users(manager), 'POST', {
    fullName: `Reset Person${n}`, email: `reset.person${n}@example.org`,
    // a user manager gives only roles it holds
    memberships: [{ tenantId: foodBank, roles: ['User Manager'], accessExpiresOn: null }],
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { user: { auth0Id: string; email: string; fullName: string } }).user;
}
const reset = (auth0Id: string) => send(users(manager, `/${encodeURIComponent(auth0Id)}/password-reset`), 'POST');

beforeAll(async () => {
  smtp = await startFakeSmtp();
  server = await startTestServer({ env: { SMTP_URL: smtp.url, SMTP_FROM: FROM } });
  base = server.url;
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  foodBank = (await db.query<{ id: string }>('select id from tenants where name = $1', ['Riverside Food Bank'])).rows[0]!.id;
  const s = await sessionFor(base, DEMO_USERS.find((u) => u.roles[0]?.[0] === 'User Manager')!.email);
  manager = { ...s, headers: { ...s.headers, tenantId: foodBank } };
});
afterAll(async () => {
  await db?.end();
  await server?.close();
  await smtp?.close();
});

describe('with SMTP_URL set, the embedded provider e-mails the link', () => {
  it('the e-mail reaches the user, and its link sets a password they sign in with', async () => {
    smtp.mode = 'accept';
    const made = await newUser();
    const res = await reset(made.auth0Id);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ delivery: 'email' });

    // adding the user mailed an invitation first (tests/api/userInvitation.test.ts): the reset is the other one
    const mail = smtp.messages.find((m) => m.to.includes(made.email) && /^Subject: Reset your Tributary password/m.test(readableBody(m.data)));
    expect(mail, 'an e-mail to the user').toBeTruthy();
    expect(mail!.from).toBe('no-reply@tributary.test');
    const body = readableBody(mail!.data);
    expect(body).toMatch(/^From: Tributary <no-reply@tributary\.test>/m);
    expect(body).toMatch(/^Subject: Reset your Tributary password/m);
    expect(body).toContain('text/plain');
    expect(body).toContain('text/html');
    const links = [...body.matchAll(/https?:\/\/[^\s"<>]+\/reset-password\?token=[A-Za-z0-9_-]+/g)].map((m) => m[0]);
    expect(links.length, 'the link in the text and the HTML part').toBeGreaterThanOrEqual(2);
    const link = links[0]!;
    expect(new URL(link).origin).toBe(base);

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
    const token = new URL(link).searchParams.get('token')!;
    const set = await fetch(`${base}/reset-password`, { method: 'POST', body: new URLSearchParams({ token, password: 'a-mailed-new-password' }) });
    expect(set.status).toBe(200);
    expect((await sessionFor(base, made.email, 'a-mailed-new-password')).auth0Id).toBe(made.auth0Id);

    const events = await resetEvents(made.auth0Id);
    expect(events.map((e) => e.details.delivery)).toEqual(['email']);
  });

  it('a mail server that turns the recipient away: not reset, and no event', async () => {
    const made = await newUser();
    smtp.mode = 'refuse';
    try {
      const res = await reset(made.auth0Id);
      expect(res.status).toBe(409);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const problem = await res.json() as { title: string; detail: string };
      expect(problem.title).toBe('password-not-reset');
      expect(problem.detail).toContain(`could not be sent through 127.0.0.1:${smtp.port}`);
      expect(await resetEvents(made.auth0Id)).toEqual([]);
    } finally {
      smtp.mode = 'accept';
    }
  });

  it('a mail server that is down: "User password has not been reset.", and no event', async () => {
    const made = await newUser();
    const before = smtp.messages.length;
    await smtp.close();
    const res = await reset(made.auth0Id);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = await res.json() as { title: ProblemTitle; detail: string };
    // the title is the browser's key for SPEC.md's message
    expect(PROBLEM_TITLES[problem.title]).toBe('User password has not been reset.');
    expect(problem.detail).toMatch(new RegExp(`^The reset e-mail could not be sent through 127\\.0\\.0\\.1:${smtp.port}`));
    expect(smtp.messages.length).toBe(before);
    expect(await resetEvents(made.auth0Id)).toEqual([]);
  });
});

describe('a mail server that never answers', () => {
  it('is given up on after the timeout, as "not reset"', async () => {
    const mute = await startFakeSmtp();
    mute.mode = 'mute';
    try {
      const mailer = smtpSender({ host: mute.host, port: mute.port, secure: false, user: null, pass: null, from: 'no-reply@x.test' }, { timeoutMs: 300 });
      const delivery = embeddedByEmail(mailer).deliverPasswordReset({ to: ADA, embeddedLink: async () => 'http://localhost/reset-password?token=t', log: silent });
      await expect(delivery).rejects.toMatchObject({ title: 'password-not-reset' });
    } finally {
      await mute.close();
    }
  });
});

const ADA: ResetRecipient = { auth0Id: 'auth0|ada', email: 'ada@example.org', fullName: 'Ada Lovelace' };
const silent = { info() {} };

describe('with a real Auth0 tenant, the Management API makes the link (against a fake of it)', () => {
  let auth0: FakeAuth0;
  beforeAll(async () => { auth0 = await startFakeAuth0(); });
  afterAll(async () => { await auth0?.close(); });
  const credentials = () => ({ clientId: auth0.clientId, clientSecret: auth0.clientSecret });
  const noLink = async (): Promise<string> => { throw new Error('the embedded link is not made for Auth0 users'); };

  it('asks for a token, then a ticket for the user, and logs it when no mail is configured', async () => {
    auth0.mode = 'ok';
    auth0.calls.length = 0;
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const delivery = await auth0Tickets(auth0.domain, credentials(), null).deliverPasswordReset({
      to: ADA, embeddedLink: noLink, log: { info: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) },
    });
    expect(delivery).toBe('auth0');
    expect(auth0.calls.map((c) => c.path)).toEqual(['/oauth/token', '/api/v2/tickets/password-change']);
    expect(auth0.calls[0]!.body).toMatchObject({ grant_type: 'client_credentials', client_id: auth0.clientId, audience: `${auth0.domain}/api/v2/` });
    expect(auth0.calls[1]!.body).toMatchObject({ user_id: ADA.auth0Id });
    expect(lines).toEqual([{ msg: 'password reset link', obj: { user: ADA.auth0Id, email: ADA.email, passwordResetLink: auth0.ticketFor(ADA.auth0Id) } }]);
  });

  it('e-mails the ticket when SMTP is configured', async () => {
    auth0.mode = 'ok';
    const mail = await startFakeSmtp();
    try {
      const mailer = smtpSender({ host: mail.host, port: mail.port, secure: false, user: null, pass: null, from: 'no-reply@x.test' });
      expect(await auth0Tickets(auth0.domain, credentials(), mailer).deliverPasswordReset({ to: ADA, embeddedLink: noLink, log: silent })).toBe('email');
      expect(mail.messages[0]!.to).toEqual([ADA.email]);
      expect(readableBody(mail.messages[0]!.data)).toContain(auth0.ticketFor(ADA.auth0Id));
    } finally {
      await mail.close();
    }
  });

  it('without management credentials: not reset, saying what is missing, and Auth0 is not asked', async () => {
    auth0.calls.length = 0;
    const delivery = passwordResetDelivery({ auth: { domain: auth0.domain, clientId: 'spa', audience: 'api', embedded: false }, smtp: null, auth0Management: null });
    await expect(delivery.deliverPasswordReset({ to: ADA, embeddedLink: noLink, log: silent }))
      .rejects.toMatchObject({ title: 'password-not-reset', detail: expect.stringContaining('AUTH0_MANAGEMENT_CLIENT_ID and AUTH0_MANAGEMENT_CLIENT_SECRET') });
    expect(auth0.calls).toEqual([]);
  });

  it('a wrong secret, a 5xx and a hung Auth0 are each "not reset" with a clear detail', async () => {
    auth0.mode = 'ok';
    await expect(auth0Tickets(auth0.domain, { ...credentials(), clientSecret: 'wrong' }, null).deliverPasswordReset({ to: ADA, embeddedLink: noLink, log: silent }))
      .rejects.toMatchObject({ title: 'password-not-reset', detail: 'Auth0 refused a Management API token (HTTP 401: Unauthorized).' });
    auth0.mode = 'down';
    await expect(auth0Tickets(auth0.domain, credentials(), null).deliverPasswordReset({ to: ADA, embeddedLink: noLink, log: silent }))
      .rejects.toMatchObject({ title: 'password-not-reset', detail: 'Auth0 refused a password change ticket (HTTP 503: Try again later).' });
    auth0.mode = 'hang';
    await expect(auth0Tickets(auth0.domain, credentials(), null, { timeoutMs: 300 }).deliverPasswordReset({ to: ADA, embeddedLink: noLink, log: silent }))
      .rejects.toMatchObject({ title: 'password-not-reset', detail: 'Auth0 did not answer a password change ticket within 0.3 seconds.' });
    await expect(auth0Tickets('http://127.0.0.1:9', credentials(), null).deliverPasswordReset({ to: ADA, embeddedLink: noLink, log: silent }))
      .rejects.toMatchObject({ title: 'password-not-reset', detail: 'Auth0 could not be reached for a Management API token.' });
    auth0.mode = 'ok';
  });
});

describe('configuration', () => {
  const env = { PORT: '4000', PUBLIC_URL: 'https://tributary.example.org' };
  it('reads SMTP_URL and SMTP_FROM, with a default sender on the public host', () => {
    expect(loadConfig({ ...env, SMTP_URL: 'smtps://mailer%40org:p%3Ass@mail.example.org' }).smtp).toEqual({
      host: 'mail.example.org', port: 465, secure: true, user: 'mailer@org', pass: 'p:ss', from: 'no-reply@tributary.example.org',
    });
    expect(loadConfig({ ...env, SMTP_URL: 'smtp://mail.example.org:2525', SMTP_FROM: FROM }).smtp).toMatchObject({ port: 2525, secure: false, user: null, from: FROM });
    expect(loadConfig(env).smtp).toBeNull();
  });
  it('refuses to start with a malformed SMTP_URL or SMTP_FROM, or half the Auth0 management credentials', () => {
    expect(() => loadConfig({ ...env, SMTP_URL: 'mail.example.org:25' })).toThrow(/SMTP_URL must start with smtp:\/\/ or smtps:\/\//);
    expect(() => loadConfig({ ...env, SMTP_URL: 'not a url' })).toThrow(/SMTP_URL must be a URL/);
    expect(() => loadConfig({ ...env, SMTP_URL: 'smtp://mail.example.org', SMTP_FROM: 'nobody' })).toThrow(/SMTP_FROM must be an e-mail address/);
    expect(() => loadConfig({ ...env, AUTH0_MANAGEMENT_CLIENT_ID: 'id' })).toThrow(/AUTH0_MANAGEMENT_CLIENT_ID and AUTH0_MANAGEMENT_CLIENT_SECRET/);
    expect(loadConfig({ ...env, AUTH0_MANAGEMENT_CLIENT_ID: 'id', AUTH0_MANAGEMENT_CLIENT_SECRET: 's' }).auth0Management).toEqual({ clientId: 'id', clientSecret: 's' });
  });
});

describe('what the User Management screen says', () => {
  const user = { auth0Id: 'a', fullName: 'Ada Lovelace', email: 'ada@example.org' } as Parameters<typeof actionMessages>[1];
  it('names where the link went', () => {
    expect(actionMessages('resetPassword', user, 'Food Bank', { delivery: 'email' }).done).toBe('A reset link was e-mailed to ada@example.org.');
    expect(actionMessages('resetPassword', user, 'Food Bank', { delivery: 'server-log' }).done).toContain('has been sent to the server log');
    expect(actionMessages('resetPassword', user, 'Food Bank', { delivery: 'auth0' }).done).toContain('Auth0 made a password reset link for Ada Lovelace');
  });
});
