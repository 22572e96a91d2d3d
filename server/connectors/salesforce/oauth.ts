/** Salesforce OAuth 2.0 at /services/oauth2/token: the username-password flow or client credentials. */
import { expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';
import type { SystemId } from '../../../src/domain/connectors/types.ts';

export interface SalesforceToken { accessToken: string; instanceUrl: string }

export function loginHost(settings: Record<string, string>): string {
  if (settings.customDomain) return `https://${settings.customDomain}`;
  return settings.environment === 'sandbox' ? 'https://test.salesforce.com' : 'https://login.salesforce.com';
}

export async function salesforceToken(system: SystemId, name: string, settings: Record<string, string>): Promise<SalesforceToken> {
  const clientCredentials = settings.authenticationType === 'client-credentials';
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
