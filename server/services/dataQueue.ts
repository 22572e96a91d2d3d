/**
 * The Data Queue's rules (SPEC.md sections 5 and 9; src/domain/dataQueue.ts): a user's own tabs,
 * at most 5, with formula cards in the user's order, and the record counts every card shows.
 * A tab of another user or tenant, like a formula of another tenant, is not found.
 */
import { cardCounts, isSameSet, mayAddTab, TabNameSchema } from '../../src/domain/dataQueue.ts';
import type { DataQueue, Tab } from '../../src/domain/api/dataQueue.ts';
import { DomainError } from '../../src/domain/errors.ts';
import * as v from 'valibot';
import type { TenantScope } from '../db/tenancy.ts';

const tabNotFound = () => new DomainError('not-found', 'No such tab.');
const formulaNotFound = () => new DomainError('not-found', 'No such formula.');
/** the contract has checked the name; this keeps the rule binding for any other caller */
const nameOf = (name: string) => v.parse(TabNameSchema, name);

async function tabOf(tenant: TenantScope, userId: string, tabId: string): Promise<Tab> {
  const tab = await tenant.dataQueue.tab(userId, tabId);
  if (!tab) throw tabNotFound();
  return tab;
}

export async function dataQueueOf(tenant: TenantScope, userId: string): Promise<DataQueue> {
  const [tabs, groups] = await Promise.all([tenant.dataQueue.tabs(userId), tenant.dataQueue.recordGroups()]);
  return { tabs, counts: Object.fromEntries([...groups].map(([formulaId, g]) => [formulaId, cardCounts(g)])) };
}

export async function createTab(tenant: TenantScope, userId: string, name: string): Promise<Tab> {
  const clean = nameOf(name);
  return tenant.transaction(async (tx) => {
    if (!mayAddTab(await tx.dataQueue.lockTabs(userId))) throw new DomainError('tab-limit');
    return tx.dataQueue.createTab(userId, clean);
  });
}

export async function renameTab(tenant: TenantScope, userId: string, tabId: string, name: string): Promise<Tab> {
  if (!await tenant.dataQueue.renameTab(userId, tabId, nameOf(name))) throw tabNotFound();
  return tabOf(tenant, userId, tabId);
}

export async function deleteTab(tenant: TenantScope, userId: string, tabId: string): Promise<void> {
  if (!await tenant.dataQueue.deleteTab(userId, tabId)) throw tabNotFound();
}

export async function placeCard(tenant: TenantScope, userId: string, tabId: string, formulaId: string): Promise<Tab> {
  return tenant.transaction(async (tx) => {
    if (!await tx.dataQueue.lockTab(userId, tabId)) throw tabNotFound();
    if (!await tx.dataQueue.hasFormula(formulaId)) throw formulaNotFound();
    await tx.dataQueue.placeCard(tabId, formulaId);
    return tabOf(tx, userId, tabId);
  });
}

export async function removeCard(tenant: TenantScope, userId: string, tabId: string, formulaId: string): Promise<Tab> {
  return tenant.transaction(async (tx) => {
    if (!await tx.dataQueue.lockTab(userId, tabId)) throw tabNotFound();
    if (!await tx.dataQueue.removeCard(tabId, formulaId)) throw formulaNotFound();
    return tabOf(tx, userId, tabId);
  });
}

/** The tab's whole order at once: it must name exactly the cards on the tab now, or nothing changes. */
export async function reorderCards(tenant: TenantScope, userId: string, tabId: string, formulaIds: string[]): Promise<Tab> {
  return tenant.transaction(async (tx) => {
    if (!await tx.dataQueue.lockTab(userId, tabId)) throw tabNotFound();
    const tab = await tabOf(tx, userId, tabId);
    if (!isSameSet(tab.formulaIds, formulaIds)) throw new DomainError('tab-order-stale');
    await tx.dataQueue.setOrder(tabId, formulaIds);
    return { ...tab, formulaIds };
  });
}
