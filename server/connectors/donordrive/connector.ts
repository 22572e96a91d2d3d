/** DonorDrive: a bearer API token against the site's (or custom domain's) /api. */
import { donordrive } from '../../../src/domain/connectors/fundraising.ts';
import { processingError, testOnlyConnector } from '../connector.ts';
import { expectJson, vendorFetch } from '../vendorHttp.ts';

export const donordriveConnector = testOnlyConnector('donordrive', async ({ settings, network }) => {
  const base = settings.siteUrl!.replace(/\/$/, '');
  const res = await vendorFetch('donordrive', 'DonorDrive', `${base}/api/events?limit=1`, {
    headers: { authorization: `Bearer ${settings.apiToken}` }, network,
  });
  const body = await expectJson<unknown>('DonorDrive', res, 'the API token');
  if (!Array.isArray(body)) throw processingError('DonorDrive did not answer with a list of events; check the site URL.');
  return { detail: `DonorDrive at ${new URL(base).host} accepted the API token.` };
}, donordrive.objects);
