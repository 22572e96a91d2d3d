/**
 * The Sandbox CRM connector: a CRM in Tributary's own database (server/db/repositories/sandboxCrm.ts),
 * so a user can run a whole formula without an outside account.
 */
import { sandbox } from './fields.ts';
import { ConnectorInputError, type Connector } from '../connector.ts';

function objectOf(object: string): 'constituents' | 'gifts' {
  if (object === 'constituents' || object === 'gifts') return object;
  throw new ConnectorInputError(`The Sandbox CRM has no object ${object}; it has constituents and gifts.`);
}

export const sandboxCrmConnector: Connector = {
  system: 'sandbox-crm',
  async test(ctx) {
    const { constituents, gifts } = await ctx.tenant.sandboxCrm.counts();
    return { detail: `The Sandbox CRM holds ${constituents} constituents and ${gifts} gifts.` };
  },
  async listObjects() { return sandbox.objects; },
  async describeFields(_ctx, object) { return sandbox.fields[objectOf(object)]; },
  pull: (ctx, object, since, options) => ctx.tenant.sandboxCrm.pull(object, since, options?.batchSize),
  search: (ctx, object, query) => ctx.tenant.sandboxCrm.search(object, query),
  searchMany: (ctx, object, queries) => ctx.tenant.sandboxCrm.searchMany(object, queries),
  candidateRecords: (ctx, object) => ctx.tenant.sandboxCrm.candidateRecords(object),
  references: (object) => sandbox.references[objectOf(object)],
  upsert: (ctx, object, items) => ctx.tenant.sandboxCrm.upsert(object, items),
};
