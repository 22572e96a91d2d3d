/** Salesforce OAuth 2.0 at /services/oauth2/token: the refresh token Connect saved, the username-password flow or client credentials. */
import { salesforceLoginHost } from '../../../src/domain/connectors/oauth.ts';
import { refused } from '../connector.ts';
import { oauthClient } from '../oauth/flow.ts';
import { expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';
import type { SystemId } from '../../../src/domain/connectors/types.ts';

export interface SalesforceToken { accessToken: string; instanceUrl: string }

export const loginHost = salesforceLoginHost;

export async function salesforceToken(system: SystemId, name: string, settings: Record<string, string>): Promise<SalesforceToken> {
  const clientCredentials = settings.authenticationType === 'client-credentials';
  if (settings.authenticationType === 'oauth') return refreshedToken(system, name, settings);
  const res = await vendorFetch(system, name, `${loginHost(settings)}/services/oauth2/token`, {
    method: 'POST', headers: FORM,
    body: form(clientCredentials
      ? { grant_type: 'client_credentials', client_id: settings.clientId, client_secret: settings.clientSecret }
      : {
        grant_type: 'password', client_id: settings.clientId, client_secret: settings.clientSecret,
        username: settings.username, password: `${settings.password ?? ''}${settings.securityToken ?? ''}`,
      }),
  });
  const body = await expectJson<{ access_token?: string; instance_url?: string }>(name, res, 'the credentials');
  return {
    accessToken: requireField(body.access_token, name, 'an access token'),
    instanceUrl: requireField(body.instance_url, name, 'an instance URL'),
  };
}

/** The web server flow's refresh token (Connect), with the connection's connected app or the server's. */
async function refreshedToken(system: SystemId, name: string, settings: Record<string, string>): Promise<SalesforceToken> {
  const client = oauthClient(system, settings);
  if (!client) throw refused(`Enter the connected app's consumer key and secret, or ask whoever runs Tributary to set them for ${name}.`);
  if (!settings.refreshToken) throw refused(`Not connected yet: use Connect to ${name}.`);
  const res = await vendorFetch(system, name, `${loginHost(settings)}/services/oauth2/token`, {
    method: 'POST', headers: FORM,
    body: form({ grant_type: 'refresh_token', client_id: client.clientId, client_secret: client.clientSecret, refresh_token: settings.refreshToken }),
  });
  const body = await expectJson<{ access_token?: string; instance_url?: string }>(name, res, 'the refresh token');
  return {
    accessToken: requireField(body.access_token, name, 'an access token'),
    instanceUrl: requireField(body.instance_url, name, 'an instance URL'),
  };
}
