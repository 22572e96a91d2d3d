/**
 * The Data Queue's tabs and cards of a tenant (reached through forTenant), each tab one user's own:
 * every method takes the user and touches only that user's tabs. The cards' foreign keys carry
 * the tenant, so a card can never point at another tenant's formula or tab.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { RecordGroup } from '../../../src/domain/dataQueue.ts';
import { dataQueueCards, dataQueueTabs } from '../schema/dataQueue.ts';
import { formulas } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';
import { recordGroups } from './recordTallies.ts';

export interface TabWithCards { id: string; name: string; formulaIds: string[] }

export function dataQueueRepository(db: Executor, tenantId: string) {
  const mine = (userId: string) => and(eq(dataQueueTabs.tenantId, tenantId), eq(dataQueueTabs.userId, userId));

  async function cardsOf(tabIds: string[]): Promise<Map<string, string[]>> {
    const byTab = new Map(tabIds.map((id) => [id, [] as string[]]));
    if (!tabIds.length) return byTab;
    const rows = await db.select({ tabId: dataQueueCards.tabId, formulaId: dataQueueCards.formulaId }).from(dataQueueCards)
      .where(and(eq(dataQueueCards.tenantId, tenantId), inArray(dataQueueCards.tabId, tabIds)))
      .orderBy(asc(dataQueueCards.position), asc(dataQueueCards.formulaId));
    for (const r of rows) byTab.get(r.tabId)?.push(r.formulaId);
    return byTab;
  }

  return {
    /** the user's tabs in their order, each with its cards in order */
    async tabs(userId: string): Promise<TabWithCards[]> {
      const tabs = await db.select({ id: dataQueueTabs.id, name: dataQueueTabs.name }).from(dataQueueTabs)
        .where(mine(userId)).orderBy(asc(dataQueueTabs.position), asc(dataQueueTabs.createdOn));
      const cards = await cardsOf(tabs.map((t) => t.id));
      return tabs.map((t) => ({ ...t, formulaIds: cards.get(t.id) ?? [] }));
    },

    /** one of the user's tabs with its cards, or undefined (another user's or tenant's tab included) */
    async tab(userId: string, tabId: string): Promise<TabWithCards | undefined> {
      const [tab] = await db.select({ id: dataQueueTabs.id, name: dataQueueTabs.name }).from(dataQueueTabs)
        .where(and(mine(userId), eq(dataQueueTabs.id, tabId))).limit(1);
      if (!tab) return undefined;
      return { ...tab, formulaIds: (await cardsOf([tab.id])).get(tab.id) ?? [] };
    },

    /**
     * Locks the user's tab list for the rest of the transaction and answers how many tabs there are.
     * A lock on the tab rows alone would not do: with no tabs there is nothing to lock, and a tab
     * another request adds meanwhile is not among the rows locked, so ten requests at once could
     * each see room for one more. The lock is on the user's list itself (an advisory lock per tenant
     * and user), so creations queue and each counts what the one before it added.
     */
    async lockTabs(userId: string): Promise<number> {
      await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`data-queue-tabs:${tenantId}:${userId}`}, 0))`);
      const rows = await db.select({ id: dataQueueTabs.id }).from(dataQueueTabs).where(mine(userId));
      return rows.length;
    },

    /** locks one of the user's tabs (its cards change one request at a time); false when it is not the user's */
    async lockTab(userId: string, tabId: string): Promise<boolean> {
      const rows = await db.select({ id: dataQueueTabs.id }).from(dataQueueTabs).where(and(mine(userId), eq(dataQueueTabs.id, tabId))).for('update');
      return rows.length > 0;
    },

    async createTab(userId: string, name: string): Promise<TabWithCards> {
      const [row] = await db.insert(dataQueueTabs).values({
        tenantId, userId, name,
        position: sql`coalesce((select max(${dataQueueTabs.position}) + 1 from ${dataQueueTabs} where ${mine(userId)}), 0)`,
      }).returning({ id: dataQueueTabs.id, name: dataQueueTabs.name });
      return { ...row!, formulaIds: [] };
    },

    async renameTab(userId: string, tabId: string, name: string): Promise<boolean> {
      const rows = await db.update(dataQueueTabs).set({ name }).where(and(mine(userId), eq(dataQueueTabs.id, tabId))).returning({ id: dataQueueTabs.id });
      return rows.length > 0;
    },

    async deleteTab(userId: string, tabId: string): Promise<boolean> {
      const rows = await db.delete(dataQueueTabs).where(and(mine(userId), eq(dataQueueTabs.id, tabId))).returning({ id: dataQueueTabs.id });
      return rows.length > 0;
    },

    /** whether the formula is the tenant's */
    async hasFormula(formulaId: string): Promise<boolean> {
      const rows = await db.select({ id: formulas.id }).from(formulas).where(and(eq(formulas.tenantId, tenantId), eq(formulas.id, formulaId))).limit(1);
      return rows.length > 0;
    },

    /** puts the card last on the tab (the caller has checked the tab is the user's); a card already there keeps its place */
    async placeCard(tabId: string, formulaId: string): Promise<void> {
      await db.insert(dataQueueCards).values({
        tenantId, tabId, formulaId,
        position: sql`coalesce((select max(${dataQueueCards.position}) + 1 from ${dataQueueCards} where ${and(eq(dataQueueCards.tenantId, tenantId), eq(dataQueueCards.tabId, tabId))}), 0)`,
      }).onConflictDoNothing();
    },

    async removeCard(tabId: string, formulaId: string): Promise<boolean> {
      const rows = await db.delete(dataQueueCards)
        .where(and(eq(dataQueueCards.tenantId, tenantId), eq(dataQueueCards.tabId, tabId), eq(dataQueueCards.formulaId, formulaId)))
        .returning({ formulaId: dataQueueCards.formulaId });
      return rows.length > 0;
    },

    /** gives the tab's cards the positions of `formulaIds`, in one statement (the caller has checked they are the tab's cards) */
    async setOrder(tabId: string, formulaIds: string[]): Promise<void> {
      if (!formulaIds.length) return;
      await db.execute(sql`
        update ${dataQueueCards} as c set position = o.position - 1
        from jsonb_array_elements_text(${JSON.stringify(formulaIds)}::jsonb) with ordinality as o(formula_id, position)
        where c.tenant_id = ${tenantId}::uuid and c.tab_id = ${tabId}::uuid and c.formula_id = o.formula_id::uuid`);
    },

    /** the tenant's records grouped by formula, bucket and state: every card's counts from the kept tallies */
    async recordGroups(): Promise<Map<string, RecordGroup[]>> {
      const out = new Map<string, RecordGroup[]>();
      for (const { formulaId, ...g } of await recordGroups(db, tenantId)) {
        const list = out.get(formulaId) ?? [];
        list.push(g);
        out.set(formulaId, list);
      }
      return out;
    },

    /** What the tenant has done of the first steps the welcome page lists (src/domain/screens.ts onboarding): each an index lookup. */
    async onboarding(): Promise<{ dataSource: boolean; formula: boolean; reviewedRecord: boolean; teammate: boolean }> {
      const { rows: [row] } = await db.execute<{ data_source: boolean; formula: boolean; reviewed_record: boolean; teammate: boolean }>(sql`
        select exists (select 1 from data_sources where tenant_id = ${tenantId} and not built_in) as data_source,
          exists (select 1 from formulas where tenant_id = ${tenantId}) as formula,
          -- from the kept tallies, never a scan of the records: a record reviewed and sent
          coalesce((select sum(n) from record_tallies where tenant_id = ${tenantId} and state = 'sent'), 0) > 0 as reviewed_record,
          (select count(*) from memberships where tenant_id = ${tenantId}) > 1 as teammate`);
      return { dataSource: row!.data_source, formula: row!.formula, reviewedRecord: row!.reviewed_record, teammate: row!.teammate };
    },
  };
}
