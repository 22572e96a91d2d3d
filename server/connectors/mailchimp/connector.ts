/** Mailchimp Marketing API 3.0: HTTP Basic with the API key; the key's suffix names the data centre. */
import { mailchimp } from '../../../src/domain/connectors/engagement.ts';
import { testOnlyConnector } from '../connector.ts';
import { basic, expectJson, requireField, vendorFetch } from '../vendorHttp.ts';

export const mailchimpConnector = testOnlyConnector('mailchimp', async ({ settings }) => {
  const apiKey = settings.apiKey!;
  const dc = apiKey.slice(apiKey.lastIndexOf('-') + 1);
  const res = await vendorFetch('mailchimp', 'Mailchimp', `https://${dc}.api.mailchimp.com/3.0/ping`, {
    headers: { authorization: basic('tributary', apiKey) },
  });
  const body = await expectJson<{ health_status?: string }>('Mailchimp', res, 'the API key');
  return { detail: `Mailchimp answered: ${requireField(body.health_status, 'Mailchimp', 'a health status')}` };
}, mailchimp.objects);
