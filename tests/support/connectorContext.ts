/** What the connector contract tests share: the context the engine builds for a saved data source, and a pull read to its end. */
import type { ConnectorContext, PullBatch } from '../../server/connectors/connector.ts';
import { grantStoreFor } from '../../server/connectors/kit/grant.ts';
import { connectionSettings } from '../../server/connectors/dataSources.ts';
import type { SecretBox } from '../../server/connectors/secrets.ts';
import type { TenantScope } from '../../server/db/tenancy.ts';

/** The context the engine builds for a formula's end on this data source: its settings as saved now, and its grant store. */
export async function contextFor(tenant: TenantScope, box: SecretBox, id: string, endSettings: Record<string, string> = {}): Promise<ConnectorContext> {
  const row = (await tenant.dataSources.get(id))!;
  return { tenant, settings: connectionSettings(box, row), dataSourceId: id, dataDir: '/tmp', grant: grantStoreFor(tenant, box, id), endSettings };
}

/** Every batch of a pull, read to its end. */
export async function pullAll(pull: AsyncIterable<PullBatch>): Promise<PullBatch[]> {
  const out: PullBatch[] = [];
  for await (const b of pull) out.push(b);
  return out;
}
