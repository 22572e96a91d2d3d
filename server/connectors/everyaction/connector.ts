/** EveryAction (NGP VAN API v4): HTTP Basic with the application name and "apiKey|mode"; the echoes call proves it. */
import { everyaction } from '../../../src/domain/connectors/engagement.ts';
import { processingError, testOnlyConnector } from '../connector.ts';
import { basic, expectJson, JSON_BODY, vendorFetch } from '../vendorHttp.ts';

export const everyactionConnector = testOnlyConnector('everyaction', async ({ settings }) => {
  const message = 'Hello from Tributary';
  const res = await vendorFetch('everyaction', 'EveryAction', 'https://api.securevan.com/v4/echoes', {
    method: 'POST',
    headers: { ...JSON_BODY, authorization: basic(settings.applicationName!, `${settings.apiKey}|${settings.databaseMode ?? '1'}`) },
    body: JSON.stringify({ message }),
  });
  const body = await expectJson<{ message?: string }>('EveryAction', res, 'the application name and API key');
  if (body.message !== message) throw processingError('EveryAction did not echo the test message.');
  return { detail: `EveryAction accepted the API key (${settings.databaseMode === '0' ? 'Voter File' : 'My Campaign'} database).` };
}, everyaction.objects);
