/** Mobile Commons: HTTP Basic with e-mail and password; answers are XML with a success attribute. */
import { mobileCommons } from '../../../src/domain/connectors/engagement.ts';
import { processingError, refused, testOnlyConnector } from '../connector.ts';
import { basic, expectOk, vendorFetch } from '../vendorHttp.ts';

export const mobileCommonsConnector = testOnlyConnector('mobile-commons', async ({ settings }) => {
  const query = settings.companyKey ? `?company=${encodeURIComponent(settings.companyKey)}` : '';
  const res = await vendorFetch('mobile-commons', 'Mobile Commons', `https://secure.mcommons.com/api/campaigns${query}`, {
    headers: { accept: 'application/xml', authorization: basic(settings.username!, settings.password!) },
  });
  const text = (await expectOk('Mobile Commons', res, 'the e-mail and password')) as string;
  const success = /<response[^>]*\bsuccess="(true|false)"/.exec(text)?.[1];
  if (success === 'false') throw refused('Mobile Commons refused the e-mail and password.');
  if (success !== 'true') throw processingError('Mobile Commons did not answer as its API documents.');
  return { detail: 'Signed in to Mobile Commons.' };
}, mobileCommons.objects);
