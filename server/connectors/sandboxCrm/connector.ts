/**
 * The Sandbox CRM connector: a CRM in Tributary's own database (its store: ./store/repository.ts),
 * so a user can run a whole formula without an outside account.
 */
import { sandbox } from './fields.ts';
import { ConnectorInputError, type Connector, type ConnectorTenant } from '../connector.ts';
import { sandboxCrmRepository } from './store/repository.ts';

export type SandboxCrmStore = ReturnType<typeof sandboxCrmRepository>;

/** The tenant's Sandbox CRM: its store, on the scope's connection or transaction (all or nothing within one). */
export const sandboxCrmStore = (tenant: Pick<ConnectorTenant, 'open'>): SandboxCrmStore => tenant.open(sandboxCrmRepository);

function objectOf(object: string): 'constituents' | 'gifts' {
  if (object === 'constituents' || object === 'gifts') return object;
  throw new ConnectorInputError(`The Sandbox CRM has no object ${object}; it has constituents and gifts.`);
}

export const sandboxCrmConnector: Connector = {
  system: 'sandbox-crm',
  async test(ctx) {
    const { constituents, gifts } = await sandboxCrmStore(ctx.tenant).counts();
    return { detail: `The Sandbox CRM holds ${constituents} constituents and ${gifts} gifts.` };
  },
  async listObjects() { return sandbox.objects; },
  async describeFields(_ctx, object) { return sandbox.fields[objectOf(object)]; },
  pull: (ctx, object, since, options) => sandboxCrmStore(ctx.tenant).pull(object, since, options?.batchSize),
  search: (ctx, object, query) => sandboxCrmStore(ctx.tenant).search(object, query),
  searchMany: (ctx, object, queries) => sandboxCrmStore(ctx.tenant).searchMany(object, queries),
  candidateRecords: (ctx, object) => sandboxCrmStore(ctx.tenant).candidateRecords(object),
  references: (object) => sandbox.references[objectOf(object)],
  upsert: (ctx, object, items) => sandboxCrmStore(ctx.tenant).upsert(object, items),
};
