/** Salesforce Marketing Cloud: OAuth 2.0 client credentials at the tenant's own authentication host. */
import { salesforceMarketingCloud } from '../../../src/domain/connectors/salesforce.ts';
import { testOnlyConnector } from '../connector.ts';
import { expectJson, JSON_BODY, requireField, vendorFetch } from '../vendorHttp.ts';

const NAME = 'Salesforce Marketing Cloud';

export const salesforceMarketingCloudConnector = testOnlyConnector('salesforce-marketing-cloud', async ({ settings }) => {
  const res = await vendorFetch('salesforce-marketing-cloud', NAME, `https://${settings.subdomain}.auth.marketingcloudapis.com/v2/token`, {
    method: 'POST', headers: JSON_BODY,
    body: JSON.stringify({
      grant_type: 'client_credentials', client_id: settings.clientId, client_secret: settings.clientSecret,
      ...(settings.accountId ? { account_id: Number(settings.accountId) } : {}),
    }),
  });
  const token = await expectJson<{ access_token?: string; rest_instance_url?: string }>(NAME, res, 'the client ID and secret');
  requireField(token.access_token, NAME, 'an access token');
  return { detail: `Signed in to ${NAME}${settings.accountId ? ` business unit ${settings.accountId}` : ''}.` };
}, salesforceMarketingCloud.objects);
