/** Pardot (Account Engagement): Salesforce OAuth, then a v5 call with the Pardot-Business-Unit-Id header. */
import { pardot } from '../../../src/domain/connectors/salesforce.ts';
import { testOnlyConnector } from '../connector.ts';
import { salesforceToken } from '../salesforce/oauth.ts';
import { expectJson, vendorFetch } from '../vendorHttp.ts';

export const pardotConnector = testOnlyConnector('pardot', async ({ settings }) => {
  const token = await salesforceToken('pardot', 'Pardot', { ...settings, authenticationType: 'username-password' });
  const host = settings.environment === 'sandbox' ? 'https://pi.demo.pardot.com' : 'https://pi.pardot.com';
  const res = await vendorFetch('pardot', 'Pardot', `${host}/api/v5/objects/prospects?fields=id&limit=1`, {
    headers: { authorization: `Bearer ${token.accessToken}`, 'pardot-business-unit-id': settings.businessUnitId! },
  });
  await expectJson('Pardot', res, 'the business unit ID');
  return { detail: `Signed in to Pardot business unit ${settings.businessUnitId}.` };
}, pardot.objects);
