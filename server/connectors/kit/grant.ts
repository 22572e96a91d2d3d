/**
 * Where a vendor connection's OAuth grant lives between calls: the refresh token in the data
 * source's sealed secrets, the current access token (sealed) in vendor_tokens. One refresh at a
 * time per data source across every worker: the refresh runs inside a transaction that holds a
 * PostgreSQL advisory lock for the data source, re-reads the grant (another worker may have just
 * refreshed and rotated it) and saves a rotated refresh token in the same transaction as the
 * token it came with, so a rotated refresh token is never lost.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { TenantScope } from '../../db/tenancy.ts';
import { connectionSettings, openSecrets, sealColumns } from '../dataSources.ts';
import type { SecretBox } from '../secrets.ts';

export interface AccessToken { accessToken: string; expiresOn: Date }

export interface RefreshOutcome {
  token: AccessToken;
  /** secrets the vendor rotated (a new refresh token), saved at once */
  rotated?: Record<string, string> | undefined;
  /** what the vendor said about the grant, for a connection test ("Riverside Production") */
  about?: string | undefined;
}

export interface GrantStore {
  /** the saved access token of the grant `refreshToken` belongs to, when one is saved */
  saved(refreshToken: string): Promise<AccessToken | null>;
  /**
   * Holding the data source's refresh lock: the latest settings go to `fresh`, which answers a
   * token still good (another worker refreshed meanwhile) or null; else `refresh` is called and
   * what it answers is saved before the lock is let go.
   */
  refresh(
    fresh: (latest: Record<string, string>, saved: AccessToken | null) => AccessToken | null,
    refresh: (latest: Record<string, string>) => Promise<RefreshOutcome>,
  ): Promise<{ token: AccessToken; settings: Record<string, string> }>;
  /** the vendor no longer accepts the grant: the data source needs reconnecting */
  needsReconnecting(reason: string): Promise<void>;
}

/** Which grant a token came from, without keeping the refresh token itself a second time. */
export const grantOf = (refreshToken: string | undefined) => createHash('sha256').update(`grant:${refreshToken ?? ''}`).digest('hex');

const aad = (tenantId: string, id: string) => `vendor-token:${tenantId}:${id}`;

/** Who is told, once, after a data source is marked as needing reconnecting (its owner: server/services/ownerNotices.ts). */
export interface ReconnectNotices {
  /** never throws: the notice is not the work's */
  needsReconnecting(tenant: TenantScope, dataSource: { id: string; displayName: string; system: string }, reason: string): Promise<void>;
}

export function grantStoreFor(tenant: TenantScope, box: SecretBox, dataSourceId: string, notices?: ReconnectNotices): GrantStore {
  const open = (row: { ciphertext: Buffer; iv: Buffer; tag: Buffer; keyVersion: string; expiresOn: Date }, tenantId: string): AccessToken | null => {
    try {
      const { accessToken } = box.open({ ciphertext: row.ciphertext, iv: row.iv, tag: row.tag, keyVersion: row.keyVersion }, aad(tenantId, dataSourceId));
      return accessToken ? { accessToken, expiresOn: row.expiresOn } : null;
    } catch {
      return null; // sealed with a key no longer held: refresh
    }
  };
  return {
    async saved(refreshToken) {
      const row = await tenant.vendorState.token(dataSourceId);
      return row && row.grant === grantOf(refreshToken) ? open(row, tenant.tenantId) : null;
    },

    async refresh(fresh, refresh) {
      return tenant.transaction(async (tx) => {
        await tx.vendorState.lockGrant(dataSourceId);
        const row = await tx.dataSources.get(dataSourceId);
        if (!row) throw new Error('The data source no longer exists.');
        const latest = connectionSettings(box, row);
        const savedRow = await tx.vendorState.token(dataSourceId);
        const saved = savedRow && savedRow.grant === grantOf(latest.refreshToken) ? open(savedRow, tx.tenantId) : null;
        const good = fresh(latest, saved);
        if (good) return { token: good, settings: latest };
        const outcome = await refresh(latest);
        const settings = { ...latest, ...outcome.rotated };
        if (outcome.rotated && Object.keys(outcome.rotated).length) {
          await tx.dataSources.update(row.id, sealColumns(box, row.tenantId, row.id, { ...openSecrets(box, row), ...outcome.rotated }));
        }
        const sealed = box.seal({ accessToken: outcome.token.accessToken }, aad(tx.tenantId, dataSourceId));
        await tx.vendorState.saveToken(dataSourceId, {
          grant: grantOf(settings.refreshToken), ciphertext: sealed.ciphertext, iv: sealed.iv, tag: sealed.tag, keyVersion: sealed.keyVersion,
          expiresOn: outcome.token.expiresOn,
        });
        return { token: outcome.token, settings };
      });
    },

    async needsReconnecting(reason) {
      const newly = await tenant.transaction(async (tx) => {
        const row = await tx.dataSources.get(dataSourceId);
        if (!row) return null;
        await tx.vendorState.markNeedsReconnecting(dataSourceId, reason);
        await tx.vendorState.dropToken(dataSourceId);
        // the activity history tells the data source's people once, when it happens
        if (!row.needsReconnecting) {
          await tx.events.insert({
            actorUserId: null, actorName: 'System', type: 'datasource.needs-reconnecting',
            description: `The data source ${row.displayName} needs reconnecting: ${reason}`,
            details: { dataSourceId, system: row.system }, correlationId: randomUUID(), formulaId: null, recordId: null,
          });
        }
        return row.needsReconnecting ? null : row;
      });
      // once it is committed, and once per time it happens
      if (newly && notices) await notices.needsReconnecting(tenant, { id: newly.id, displayName: newly.displayName, system: newly.system }, reason);
    },
  };
}
