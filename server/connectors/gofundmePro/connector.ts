/** GoFundMe Pro (Classy API 2.0): OAuth 2.0 client credentials, then the organization the credentials belong to. */
import { gofundmePro } from '../../../src/domain/connectors/fundraising.ts';
import { refused, testOnlyConnector } from '../connector.ts';
import { expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

const NAME = 'GoFundMe Pro';

export const gofundmeProConnector = testOnlyConnector('gofundme-pro', async ({ settings }) => {
  const tokenRes = await vendorFetch('gofundme-pro', NAME, 'https://api.classy.org/oauth2/auth', {
    method: 'POST', headers: FORM,
    body: form({ grant_type: 'client_credentials', client_id: settings.clientId, client_secret: settings.clientSecret }),
  });
  const token = await expectJson<{ access_token?: string }>(NAME, tokenRes, 'the client ID and secret');
  const accessToken = requireField(token.access_token, NAME, 'an access token');
  const orgRes = await vendorFetch('gofundme-pro', NAME, `https://api.classy.org/2.0/organizations/${encodeURIComponent(settings.organizationId!)}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  if (orgRes.status === 404) throw refused(`${NAME} has no organization ${settings.organizationId} for these credentials.`);
  const org = await expectJson<{ name?: string }>(NAME, orgRes, 'access to the organization');
  return { detail: `Signed in to ${NAME} for ${org.name ?? `organization ${settings.organizationId}`}.` };
}, gofundmePro.objects);
