/**
 * The refresh-token exchange of OAuth 2.0 (RFC 6749 section 6) as most vendors answer it: the
 * application's id and secret as HTTP Basic or in the form, `invalid_grant` for a refresh token the
 * vendor no longer accepts (the data source needs reconnecting), a new refresh token in the answer
 * when the vendor rotates them (saved at once by the kit's grant store), an outage worth retrying.
 */
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import { processingError, refused, transientProblem } from '../connector.ts';
import { oauthClient } from '../oauth/flow.ts';
import { basic, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';
import type { RefreshOutcome } from './grant.ts';
import { InvalidGrant } from './oauthSession.ts';

export async function refreshTokenGrant(o: {
  system: SystemId; name: string; url: string; clientAuthentication: 'basic' | 'body';
  settings: Record<string, string>; signal?: AbortSignal | undefined;
  /** seconds an access token lives when the answer does not say */
  defaultLifetimeS: number;
}): Promise<RefreshOutcome> {
  const app = oauthClient(o.system, o.settings);
  if (!app) throw refused(`Enter the application's client ID and secret, or ask whoever runs Tributary to set them for ${o.name}.`);
  const refreshToken = o.settings.refreshToken;
  if (!refreshToken) throw refused(`Not connected yet: use Connect to ${o.name}.`);
  const res = await vendorFetch(o.system, o.name, o.url, {
    method: 'POST', signal: o.signal,
    headers: { ...FORM, accept: 'application/json', ...(o.clientAuthentication === 'basic' ? { authorization: basic(app.clientId, app.clientSecret) } : {}) },
    body: form({
      grant_type: 'refresh_token', refresh_token: refreshToken,
      ...(o.clientAuthentication === 'body' ? { client_id: app.clientId, client_secret: app.clientSecret } : {}),
    }),
  });
  const text = await res.text();
  let answer: { access_token?: string; refresh_token?: string; expires_in?: number; error?: string } = {};
  try { answer = JSON.parse(text) as typeof answer; } catch { /* said below */ }
  if (res.status === 400 && answer.error === 'invalid_grant') throw new InvalidGrant();
  if (res.status >= 500) throw transientProblem(processingError(`${o.name} answered with a server error (HTTP ${res.status}). Try again later.`));
  if (res.status !== 200) {
    const code = typeof answer.error === 'string' && /^[a-z_]{1,64}$/.test(answer.error) ? `: ${answer.error}` : '';
    throw refused(`${o.name} did not accept the application's credentials or refresh token (HTTP ${res.status}${code}).`);
  }
  const accessToken = requireField(answer.access_token, o.name, 'an access token');
  const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : o.defaultLifetimeS;
  return {
    token: { accessToken, expiresOn: new Date(Date.now() + lifetime * 1000) },
    rotated: answer.refresh_token && answer.refresh_token !== refreshToken ? { refreshToken: answer.refresh_token } : undefined,
  };
}
