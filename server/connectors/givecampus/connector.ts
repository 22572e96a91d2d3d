/** GiveCampus: a bearer API token, valid only in the environment (or custom domain) that issued it. */
import { givecampus } from '../../../src/domain/connectors/fundraising.ts';
import { testOnlyConnector } from '../connector.ts';
import { expectJson, vendorFetch } from '../vendorHttp.ts';

export function givecampusBase(settings: Record<string, string>): string {
  if (settings.customDomain) return settings.customDomain.replace(/\/$/, '');
  return settings.environment === 'sandbox' ? 'https://sandbox.givecampus.com' : 'https://www.givecampus.com';
}

export const givecampusConnector = testOnlyConnector('givecampus', async ({ settings, network }) => {
  const res = await vendorFetch('givecampus', 'GiveCampus', `${givecampusBase(settings)}/api/v1/designations`, {
    headers: { authorization: `Bearer ${settings.apiToken}` },
    network,
  });
  await expectJson('GiveCampus', res, `the API token (tokens work only in the environment that issued them)`);
  return { detail: `GiveCampus accepted the API token (${settings.customDomain ? 'custom domain' : settings.environment ?? 'production'}).` };
}, givecampus.objects);
