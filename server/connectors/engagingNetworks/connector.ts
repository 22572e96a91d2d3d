/** Engaging Networks: the API user token is posted to /ens/service/authenticate for a session token. */
import { engagingNetworks } from '../../../src/domain/connectors/engagement.ts';
import { testOnlyConnector } from '../connector.ts';
import { expectJson, JSON_BODY, requireField, vendorFetch } from '../vendorHttp.ts';

export const DATA_CENTRES: Record<string, string> = {
  'us': 'https://us.engagingnetworks.app',
  'ca': 'https://ca.engagingnetworks.app',
  'e-activist': 'https://www.e-activist.com',
};

export const engagingNetworksConnector = testOnlyConnector('engaging-networks', async ({ settings }) => {
  const host = DATA_CENTRES[settings.dataCentre!] ?? DATA_CENTRES.us!;
  const res = await vendorFetch('engaging-networks', 'Engaging Networks', `${host}/ens/service/authenticate`, {
    method: 'POST', headers: JSON_BODY, body: settings.apiToken!,
  });
  const body = await expectJson<Record<string, unknown>>('Engaging Networks', res, 'the API user token');
  requireField(body['ens-auth-token'] as string | undefined, 'Engaging Networks', 'a session token');
  return { detail: 'Engaging Networks accepted the API user token.' };
}, engagingNetworks.objects);
