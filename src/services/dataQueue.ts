/** The Data Queue of the web API (/web-api/v1/data-queue), typed by its contracts (src/domain/api/dataQueue.ts). */
import { dataQueueService, type DataQueue, type Onboarding, type Tab } from '../domain/api/dataQueue.ts';
import { serviceClient } from './gateway.ts';

export type { DataQueue, Onboarding, Tab };

const client = serviceClient(dataQueueService);
// the tabs machine tells the user what failed, in its own words
const quiet = { silent: true };

export const dataQueue = {
  list: (): Promise<DataQueue> => client.call('list', {}, quiet),
  onboarding: (): Promise<Onboarding> => client.call('onboarding', {}, quiet),
  createTab: (name: string): Promise<Tab> => client.call('createTab', { body: { name } }, quiet),
  renameTab: (tabId: string, name: string): Promise<Tab> => client.call('renameTab', { params: { tabId }, body: { name } }, quiet),
  deleteTab: async (tabId: string): Promise<void> => { await client.call('deleteTab', { params: { tabId } }, quiet); },
  placeCard: (tabId: string, formulaId: string): Promise<Tab> => client.call('placeCard', { params: { tabId, formulaId } }, quiet),
  removeCard: (tabId: string, formulaId: string): Promise<Tab> => client.call('removeCard', { params: { tabId, formulaId } }, quiet),
  reorderCards: (tabId: string, formulaIds: string[]): Promise<Tab> => client.call('reorderCards', { params: { tabId }, body: { formulaIds } }, quiet),
};
export type DataQueueClient = typeof dataQueue;
