/**
 * Blackbaud SKY API (Raiser's Edge NXT, Financial Edge NXT). Both sign in through the connector
 * kit's OAuth session and read lists the same way (skyApi/client.ts, lists.ts). Raiser's Edge NXT
 * reads and writes constituents and gifts (renxt.ts); Financial Edge NXT reads accounts and journal
 * entries and writes journal entry batches (fenxt.ts).
 */
export { renxtConnector } from './renxt.ts';
export { fenxtConnector } from './fenxt.ts';
