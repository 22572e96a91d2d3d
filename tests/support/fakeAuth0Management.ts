/**
 * A fake of the two Auth0 calls a password reset makes: a client-credentials token from
 * /oauth/token, and a password change ticket from /api/v2/tickets/password-change. It checks what a
 * real tenant would refuse (wrong secret, wrong audience, missing token or user) and records each call.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAuth0 {
  /** what AUTH0_DOMAIN would be: the fake's origin */
  domain: string;
  clientId: string;
  clientSecret: string;
  calls: { path: string; body: Record<string, unknown>; authorization: string | undefined }[];
  /** 'ok'; 'down': tickets answer 503; 'hang': tickets never answer */
  mode: 'ok' | 'down' | 'hang';
  ticketFor(userId: string): string;
  close(): Promise<void>;
}

const TOKEN = 'fake-management-token';

export async function startFakeAuth0(): Promise<FakeAuth0> {
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = (() => { try { return JSON.parse(raw) as Record<string, unknown>; } catch { return {}; } })();
    fake.calls.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
    const answer = (status: number, json: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json)); };
    if (req.method === 'POST' && req.url === '/oauth/token') {
      if (body.grant_type !== 'client_credentials' || body.client_id !== fake.clientId || body.client_secret !== fake.clientSecret) {
        return answer(401, { error: 'access_denied', error_description: 'Unauthorized' });
      }
      if (body.audience !== `${fake.domain}/api/v2/`) return answer(403, { error: 'access_denied', error_description: 'Service not enabled within domain' });
      return answer(200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 86400 });
    }
    if (req.method === 'POST' && req.url === '/api/v2/tickets/password-change') {
      if (fake.mode === 'hang') { hanging.add(res); return; }
      if (fake.mode === 'down') return answer(503, { statusCode: 503, error: 'Service Unavailable', message: 'Try again later' });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(401, { statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' });
      if (typeof body.user_id !== 'string') return answer(400, { statusCode: 400, error: 'Bad Request', message: 'Payload validation error' });
      return answer(201, { ticket: fake.ticketFor(body.user_id) });
    }
    answer(404, { statusCode: 404, error: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const domain = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeAuth0 = {
    domain, clientId: 'fake-m2m-client', clientSecret: 'fake-m2m-secret', calls: [], mode: 'ok',
    ticketFor: (userId) => `${domain}/lo/reset?ticket=${encodeURIComponent(userId)}#`,
    close: () => new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.close(() => resolve());
    }),
  };
  return fake;
}
