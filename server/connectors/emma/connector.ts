/** Emma: HTTP Basic with the public and private API keys, on the account's own path. */
import { emma } from '../../../src/domain/connectors/engagement.ts';
import { processingError, refused, testOnlyConnector } from '../connector.ts';
import { basic, expectJson, vendorFetch } from '../vendorHttp.ts';

export const emmaConnector = testOnlyConnector('emma', async ({ settings }) => {
  const res = await vendorFetch('emma', 'Emma', `https://api.e2ma.net/${encodeURIComponent(settings.accountId!)}/fields`, {
    headers: { authorization: basic(settings.publicApiKey!, settings.privateApiKey!) },
  });
  if (res.status === 404) throw refused(`Emma has no account ${settings.accountId} for these keys.`);
  const fields = await expectJson<unknown>('Emma', res, 'the API keys');
  if (!Array.isArray(fields)) throw processingError('Emma answered without the list of fields.');
  return { detail: `Signed in to Emma account ${settings.accountId} (${fields.length} member fields).` };
}, emma.objects);
