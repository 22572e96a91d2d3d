/**
 * Signs in against the embedded provider the way the Auth0 SDK does (authorization code with PKCE,
 * form-encoded token requests), with fetch and a small cookie jar.
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

export interface Tokens { access_token: string; id_token: string; refresh_token?: string; expires_in: number }

export class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i), value = pair!.slice(i + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name); else this.cookies.set(name, value);
    }
  }
  header() { return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '); }
}

const b64url = (b: Buffer) => b.toString('base64url');

export interface SignInOptions { baseUrl: string; clientId?: string; audience?: string; email: string; password: string }

export interface SignInPage {
  jar: CookieJar;
  /** the sign-in form's action (absolute URL) */
  loginAction: string;
  verifier: string;
  redirectUri: string;
}

/** /authorize as the SDK sends it, followed to the provider's sign-in page. */
export async function openSignInPage(o: { baseUrl: string; clientId?: string; audience?: string }): Promise<SignInPage> {
  const jar = new CookieJar();
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash('sha256').update(verifier).digest());
  const redirectUri = o.baseUrl;
  const auth = new URL('/authorize', o.baseUrl);
  auth.search = new URLSearchParams({
    client_id: o.clientId ?? 'tributary-app', response_type: 'code', redirect_uri: redirectUri,
    scope: 'openid profile email offline_access', audience: o.audience ?? 'https://api.tributary.local',
    state: b64url(randomBytes(16)), nonce: b64url(randomBytes(16)), code_challenge: challenge, code_challenge_method: 'S256',
    response_mode: 'query',
  }).toString();
  const res = await follow(auth.toString(), jar, o.baseUrl);
  const loginAction = new URL(`${new URL(res.url).pathname}/login`, o.baseUrl).toString();
  return { jar, loginAction, verifier, redirectUri };
}

/**
 * Posts the sign-in form with node:http, so a test can choose the address the request comes from
 * (any 127.x.y.z reaches a server on 127.0.0.1) and send many at once.
 */
export function postSignIn(page: SignInPage, form: { email: string; password: string }, localAddress?: string) {
  const body = new URLSearchParams(form).toString();
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(page.loginAction, {
      method: 'POST', localAddress, agent: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), cookie: page.jar.header() },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function signIn(o: SignInOptions): Promise<Tokens & { jar: CookieJar }> {
  const { jar, loginAction, verifier, redirectUri } = await openSignInPage(o);
  const login = await fetch(loginAction, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    body: new URLSearchParams({ email: o.email, password: o.password }),
  });
  jar.store(login);
  if (login.status !== 302 && login.status !== 303) throw new Error(`sign-in failed with ${login.status}: ${await login.text()}`);
  const res = await follow(new URL(login.headers.get('location')!, o.baseUrl).toString(), jar, o.baseUrl);
  const code = new URL(res.url).searchParams.get('code');
  if (!code) throw new Error(`no code in ${res.url}`);
  const tokens = await tokenRequest(o.baseUrl, {
    grant_type: 'authorization_code', client_id: o.clientId ?? 'tributary-app', code, code_verifier: verifier, redirect_uri: redirectUri,
  });
  return { ...tokens, jar };
}

/** Follows redirects by hand (keeping cookies) until one leaves the provider's own routes. */
async function follow(url: string, jar: CookieJar, baseUrl: string): Promise<{ url: string; res: Response }> {
  let current = url;
  for (let i = 0; i < 10; i++) {
    const res = await fetch(current, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    const loc = res.headers.get('location');
    if (!loc) return { url: current, res };
    const next = new URL(loc, current);
    if (next.origin === new URL(baseUrl).origin && next.searchParams.has('code')) return { url: next.toString(), res };
    current = next.toString();
  }
  throw new Error('too many redirects');
}

export async function tokenRequest(baseUrl: string, body: Record<string, string>): Promise<Tokens> {
  const res = await fetch(new URL('/oauth/token', baseUrl), {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body),
  });
  const json = await res.json() as Tokens & { error?: string };
  if (!res.ok) throw Object.assign(new Error(`token request failed: ${json.error}`), { status: res.status, body: json });
  return json;
}
