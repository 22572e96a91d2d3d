/** Constant Contact v3: the refresh token is exchanged (HTTP Basic client id and secret), then the account summary read. */
import { constantContact } from '../../../src/domain/connectors/engagement.ts';
import { testOnlyConnector } from '../connector.ts';
import { basic, expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

const NAME = 'Constant Contact';

export const constantContactConnector = testOnlyConnector('constant-contact', async ({ settings }) => {
  const tokenRes = await vendorFetch('constant-contact', NAME, 'https://authz.constantcontact.com/oauth2/default/v1/token', {
    method: 'POST',
    headers: { ...FORM, authorization: basic(settings.clientId!, settings.clientSecret!) },
    body: form({ grant_type: 'refresh_token', refresh_token: settings.refreshToken }),
  });
  const token = await expectJson<{ access_token?: string; refresh_token?: string }>(NAME, tokenRes, 'the client credentials or refresh token');
  const accessToken = requireField(token.access_token, NAME, 'an access token');
  const summaryRes = await vendorFetch('constant-contact', NAME, 'https://api.cc.email/v3/account/summary', {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const summary = await expectJson<{ organization_name?: string }>(NAME, summaryRes, 'the access token');
  return {
    detail: `Signed in to ${NAME}${summary.organization_name ? ` for ${summary.organization_name}` : ''}.`,
    // refresh tokens rotate: the new one replaces the saved one
    ...(token.refresh_token && token.refresh_token !== settings.refreshToken ? { updatedSecrets: { refreshToken: token.refresh_token } } : {}),
  };
}, constantContact.objects);
