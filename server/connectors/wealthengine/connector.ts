/** WealthEngine API v1: "Authorization: APIKey {key}", production or sandbox host. */
import { wealthengine } from '../../../src/domain/connectors/fundraising.ts';
import { testOnlyConnector } from '../connector.ts';
import { expectJson, vendorFetch } from '../vendorHttp.ts';

export const wealthengineConnector = testOnlyConnector('wealthengine', async ({ settings }) => {
  const host = settings.environment === 'sandbox' ? 'https://api-sandbox.wealthengine.com' : 'https://api.wealthengine.com';
  const res = await vendorFetch('wealthengine', 'WealthEngine', `${host}/v1/health`, {
    headers: { authorization: `APIKey ${settings.apiKey}` },
  });
  await expectJson('WealthEngine', res, 'the API key');
  return { detail: `WealthEngine accepted the API key (${settings.environment ?? 'production'}).` };
}, wealthengine.objects);
