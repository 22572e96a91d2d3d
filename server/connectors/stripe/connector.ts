/** Stripe: the secret (or restricted) key as a bearer token; the balance call proves it. */
import { stripe } from '../../../src/domain/connectors/fundraising.ts';
import { processingError, testOnlyConnector } from '../connector.ts';
import { expectJson, vendorFetch } from '../vendorHttp.ts';

export const stripeConnector = testOnlyConnector('stripe', async ({ settings }) => {
  const res = await vendorFetch('stripe', 'Stripe', 'https://api.stripe.com/v1/balance', {
    headers: { authorization: `Bearer ${settings.secretKey}` },
  });
  const body = await expectJson<{ object?: string; livemode?: boolean }>('Stripe', res, 'the key');
  if (body.object !== 'balance') throw processingError('Stripe answered without a balance.');
  return { detail: `Stripe accepted the key (${body.livemode ? 'live' : 'test'} mode).` };
}, stripe.objects);
