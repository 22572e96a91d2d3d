/**
 * Blackbaud SKY API (Raiser's Edge NXT, Financial Edge NXT). Both sign in through the connector
 * kit's OAuth session (skyApi/client.ts). Raiser's Edge NXT reads and writes records (renxt.ts);
 * Financial Edge NXT tests its connection with one read of the general ledger.
 */
import { fenxt } from '../../../src/domain/connectors/blackbaud.ts';
import { testOnlyConnector, type Connector } from '../connector.ts';
import { skySession } from './client.ts';

export { renxtConnector } from './renxt.ts';

export const fenxtConnector: Connector = testOnlyConnector('fenxt', async (ctx) => {
  const name = 'Financial Edge NXT';
  const { client, session } = skySession(ctx, 'fenxt', name);
  await session.exchangeNow();
  await client.call({ path: '/generalledger/v1/accounts', query: { limit: 1 } });
  const where = session.about();
  const rotated = session.rotated();
  return { detail: `Signed in to ${name}${where ? ` (${where})` : ''}.`, ...(rotated ? { updatedSecrets: rotated } : {}) };
}, fenxt.objects);
