/** Swoogo: OAuth 2.0 client credentials, HTTP Basic of the URL-encoded key and secret. */
import { swoogo } from '../../../src/domain/connectors/fundraising.ts';
import { testOnlyConnector } from '../connector.ts';
import { basic, expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

export const swoogoConnector = testOnlyConnector('swoogo', async ({ settings }) => {
  const res = await vendorFetch('swoogo', 'Swoogo', 'https://api.swoogo.com/api/v1/oauth2/token.json', {
    method: 'POST',
    headers: { ...FORM, authorization: basic(encodeURIComponent(settings.consumerKey!), encodeURIComponent(settings.consumerSecret!)) },
    body: form({ grant_type: 'client_credentials' }),
  });
  const token = await expectJson<{ access_token?: string }>('Swoogo', res, 'the API key and secret');
  requireField(token.access_token, 'Swoogo', 'an access token');
  return { detail: 'Swoogo issued an access token for these credentials.' };
}, swoogo.objects);
