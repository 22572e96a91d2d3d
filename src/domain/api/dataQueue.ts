/**
 * Contracts of the Data Queue (/web-api/v1/data-queue): the caller's own tabs in the active
 * tenant, each with the formula cards placed on it in the caller's order, and the record counts
 * the cards show. Everything needs formula view; a tab is its owner's alone (another user's tab,
 * like another tenant's, is not found).
 */
import * as v from 'valibot';
import { TabNameSchema } from '../dataQueue.ts';
import { endpoint, service } from './contract.ts';

export const TabSchema = v.object({
  id: v.string(),
  name: v.string(),
  /** the formulas whose cards are on the tab, in the tab's order */
  formulaIds: v.array(v.string()),
});
export type Tab = v.InferOutput<typeof TabSchema>;

export const DataQueueSchema = v.object({
  tabs: v.array(TabSchema),
  /** per formula of the tenant: records per card count (src/domain/dataQueue.ts CARD_COUNTS, and validation-exceptions/<bucket>) */
  counts: v.record(v.string(), v.record(v.string(), v.number())),
});
export type DataQueue = v.InferOutput<typeof DataQueueSchema>;

export const TabNameBodySchema = v.object({ name: TabNameSchema });
export const CardOrderSchema = v.object({
  /** every formula on the tab, each once, in the new order */
  formulaIds: v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.maxLength(10_000)),
});

/** What the tenant has done of the welcome page's first steps (src/domain/screens.ts onboarding). */
export const OnboardingSchema = v.object({
  dataSource: v.boolean(),
  formula: v.boolean(),
  /** a record reviewed and sent to its destination */
  reviewedRecord: v.boolean(),
  /** someone besides the first user is a member */
  teammate: v.boolean(),
});
export type Onboarding = v.InferOutput<typeof OnboardingSchema>;

const view = { resource: 'formula', action: 'view' } as const;

export const dataQueueService = service({
  name: 'web API: data queue',
  basePath: '/web-api/v1/data-queue',
  endpoints: {
    onboarding: endpoint({ method: 'get', path: '/onboarding', access: view, response: OnboardingSchema, summary: 'Which of the welcome page\'s first steps the tenant has done: a data source, a formula, a record sent, a second member.' }),
    list: endpoint({ method: 'get', path: '/tabs', access: view, response: DataQueueSchema, summary: 'The caller\'s tabs with their cards in order, and the record counts of every formula\'s card.' }),
    createTab: endpoint({
      method: 'post', path: '/tabs', access: view, body: TabNameBodySchema, response: TabSchema, status: 201,
      summary: 'Adds a tab after the caller\'s others: at most 5, named with at most 40 letters, digits, spaces and dashes.', problems: ['tab-limit'],
    }),
    renameTab: endpoint({ method: 'patch', path: '/tabs/:tabId', access: view, body: TabNameBodySchema, response: TabSchema, summary: 'Renames one of the caller\'s tabs.' }),
    deleteTab: endpoint({ method: 'delete', path: '/tabs/:tabId', access: view, response: null, status: 204, summary: 'Deletes one of the caller\'s tabs with its cards (the formulas stay).' }),
    placeCard: endpoint({
      method: 'put', path: '/tabs/:tabId/cards/:formulaId', access: view, response: TabSchema,
      summary: 'Places a formula\'s card last on the tab; a card already there stays where it is.',
    }),
    removeCard: endpoint({ method: 'delete', path: '/tabs/:tabId/cards/:formulaId', access: view, response: TabSchema, summary: 'Takes a formula\'s card off the tab.' }),
    reorderCards: endpoint({
      method: 'put', path: '/tabs/:tabId/order', access: view, body: CardOrderSchema, response: TabSchema,
      summary: 'The whole order of the tab\'s cards at once; refused unless it names exactly the cards on the tab.', problems: ['tab-order-stale'],
    }),
  },
});
