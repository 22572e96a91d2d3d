/** Mobile Commons: HTTP Basic with e-mail and password; answers are XML with a success attribute. */
import { SaxesParser } from 'saxes';
import { mobileCommons } from '../../../src/domain/connectors/engagement.ts';
import { processingError, refused, testOnlyConnector } from '../connector.ts';
import { basic, expectOk, vendorFetch } from '../vendorHttp.ts';

export const mobileCommonsConnector = testOnlyConnector('mobile-commons', async ({ settings }) => {
  const query = settings.companyKey ? `?company=${encodeURIComponent(settings.companyKey)}` : '';
  const res = await vendorFetch('mobile-commons', 'Mobile Commons', `https://secure.mcommons.com/api/campaigns${query}`, {
    headers: { accept: 'application/xml', authorization: basic(settings.username!, settings.password!) },
  });
  const text = (await expectOk('Mobile Commons', res, 'the e-mail and password')) as string;
  const success = responseSuccess(text);
  if (success === 'false') throw refused('Mobile Commons refused the e-mail and password.');
  if (success !== 'true') throw processingError('Mobile Commons did not answer as its API documents.');
  return { detail: 'Signed in to Mobile Commons.' };
}, mobileCommons.objects);

/** The success attribute of the answer's <response> element, read with an XML parser; undefined when there is none or the XML is broken. */
function responseSuccess(xml: string): string | undefined {
  const parser = new SaxesParser({ position: false });
  let success: string | undefined;
  let root = true;
  parser.on('opentag', (tag) => {
    if (root && tag.name === 'response') success = String(tag.attributes.success ?? '');
    root = false;
  });
  try {
    parser.write(xml).close();
  } catch {
    return undefined;
  }
  return success;
}
