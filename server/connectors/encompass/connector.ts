/** Encompass (iModules): OAuth 2.0 client credentials at the API's token endpoint. */
import { encompass } from '../../../src/domain/connectors/engagement.ts';
import { testOnlyConnector } from '../connector.ts';
import { basic, expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

export const encompassConnector = testOnlyConnector('encompass', async ({ settings }) => {
  const res = await vendorFetch('encompass', 'Encompass', 'https://api.imodules.com/oauth2/token', {
    method: 'POST',
    headers: { ...FORM, authorization: basic(settings.clientId!, settings.clientSecret!) },
    body: form({ grant_type: 'client_credentials' }),
  });
  const token = await expectJson<{ access_token?: string; expires_in?: number }>('Encompass', res, 'the client ID and secret');
  requireField(token.access_token, 'Encompass', 'an access token');
  return { detail: 'Encompass issued an access token for these credentials.' };
}, encompass.objects);
