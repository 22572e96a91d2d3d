/**
 * Adding a user invites them (issue 28): a link to choose a first password, e-mailed through
 * SMTP_URL (a fake SMTP server here) with who added them; without a mail server, the answer says
 * the link is in the server log; a mail server that fails leaves the user added, and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DEMO_USERS } from '../../server/db/seed.ts';
import type { UserInvitation, UserListItem } from '../../src/domain/api/accountManagement.ts';
import { invitationText } from '../../src/machines/userList.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { readableBody, startFakeSmtp, type FakeSmtp } from '../support/fakeSmtp.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const AM = '/account-management/v1';
const MANAGER = DEMO_USERS.find((u) => u.roles[0]?.[0] === 'User Manager')!;

interface Running { server: TestServer; manager: Session; foodBank: string }

async function start(env: Record<string, string> = {}): Promise<Running> {
  const server = await startTestServer({ env });
  const db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  const foodBank = (await db.query<{ id: string }>('select id from tenants where name = $1', ['Riverside Food Bank'])).rows[0]!.id;
  await db.end();
  const s = await sessionFor(server.url, MANAGER.email);
  return { server, foodBank, manager: { ...s, headers: { ...s.headers, tenantId: foodBank } } };
}

let n = 0;
async function add(r: Running): Promise<{ user: UserListItem; invitation: UserInvitation }> {
  n += 1;
  const res = await call(r.server.url, `${AM}/user/organization/${r.manager.orgId}/users`, {
    method: 'POST', headers: r.manager.headers,
    body: { fullName: `Invited Person${n}`, email: `invited.person${n}@example.org`, memberships: [{ tenantId: r.foodBank, roles: ['User Manager'], accessExpiresOn: null }] },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json() as Promise<{ user: UserListItem; invitation: UserInvitation }>;
}

describe('with SMTP_URL set', () => {
  let smtp: FakeSmtp;
  let r: Running;
  beforeAll(async () => {
    smtp = await startFakeSmtp();
    r = await start({ SMTP_URL: smtp.url, SMTP_FROM: 'Tributary <no-reply@tributary.test>' });
  });
  afterAll(async () => {
    await r?.server.close();
    await smtp?.close();
  });

  it('e-mails the new user who added them and a link that sets the password they sign in with', async () => {
    const { user, invitation } = await add(r);
    expect(invitation).toBe('email');
    const mails = smtp.messages.filter((m) => m.to.includes(user.email));
    expect(mails, 'one invitation').toHaveLength(1);
    const body = readableBody(mails[0]!.data);
    expect(body).toMatch(/^Subject: You have been added to Tributary/m);
    expect(body).toContain(`Hello ${user.fullName},`);
    expect(body).toContain(`${MANAGER.fullName} added you to Tributary`);
    const links = [...body.matchAll(/https?:\/\/[^\s"<>]+\/reset-password\?token=[A-Za-z0-9_-]+/g)].map((m) => m[0]);
    expect(links.length, 'the link in the text and the HTML part').toBeGreaterThanOrEqual(2);
    expect(new URL(links[0]!).origin).toBe(r.server.url);

    const token = new URL(links[0]!).searchParams.get('token')!;
    const set = await fetch(`${r.server.url}/reset-password`, { method: 'POST', body: new URLSearchParams({ token, password: 'an-invited-password' }) });
    expect(set.status).toBe(200);
    expect((await sessionFor(r.server.url, user.email, 'an-invited-password')).auth0Id).toBe(user.auth0Id);
    // the screen says where it went
    expect(invitationText(invitation, user)).toBe(`An invitation with a link to set a password was e-mailed to ${user.email}.`);
  });

  it('a mail server that turns the address away: the user is added all the same, and told to use Reset password', async () => {
    smtp.mode = 'refuse';
    try {
      const { user, invitation } = await add(r);
      expect(invitation).toBe('not-sent');
      expect(user.active).toBe(true);
      expect(invitationText(invitation, user)).toContain('Use Reset password');
    } finally {
      smtp.mode = 'accept';
    }
  });
});

describe('without a mail server', () => {
  let r: Running;
  beforeAll(async () => { r = await start(); });
  afterAll(async () => { await r?.server.close(); });

  it('answers that the invitation link is in the server log, and the screen says so', async () => {
    const { user, invitation } = await add(r);
    expect(invitation).toBe('server-log');
    expect(invitationText(invitation, user)).toBe(
      `No mail server is configured: the invitation link for ${user.fullName} to set a password is in the server log, for whoever runs Tributary to pass on. It works once, for a day.`,
    );
  });
});
