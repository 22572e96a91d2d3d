/** HubSpot: a private app's access token as a bearer token; the account details call proves it. */
import { hubspot } from '../../../src/domain/connectors/engagement.ts';
import { testOnlyConnector } from '../connector.ts';
import { expectJson, vendorFetch } from '../vendorHttp.ts';

export const hubspotConnector = testOnlyConnector('hubspot', async ({ settings }) => {
  const res = await vendorFetch('hubspot', 'HubSpot', 'https://api.hubapi.com/account-info/v3/details', {
    headers: { authorization: `Bearer ${settings.accessToken}` },
  });
  const body = await expectJson<{ portalId?: number }>('HubSpot', res, 'the access token');
  return { detail: `Signed in to HubSpot${body.portalId ? ` account ${body.portalId}` : ''}.` };
}, hubspot.objects);
