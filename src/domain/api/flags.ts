/** Contracts of the flag snapshot (Flipt's client-side route) and the flag administration of /web-api/v1/flags. */
import * as v from 'valibot';
import { FlagDefinitionSchema, FlagEnabledSchema } from '../flags/definitions.ts';
import { FlagSnapshotSchema } from '../flags/snapshot.ts';
import { endpoint, service } from './contract.ts';

export const StoredFlagSchema = v.intersect([
  v.object({ key: v.string(), namespace: v.string(), createdOn: v.string(), updatedOn: v.string() }),
  FlagDefinitionSchema,
]);

export const flagSnapshotService = service({
  name: 'flags (Flipt-compatible)',
  basePath: '/internal/v1/evaluation/snapshot',
  endpoints: {
    snapshot: endpoint({
      method: 'get', path: '/namespace/:namespace', access: 'tenant', response: FlagSnapshotSchema,
      summary: 'The tenant\'s flags of a namespace as Flipt\'s snapshot, with a strong ETag; If-None-Match answers 304.',
      query: v.object({ reference: v.optional(v.pipe(v.string('Give reference once.'), v.description('accepted and ignored: flags have one live version'))) }),
    }),
  },
});

const namespaceQuery = v.object({ namespace: v.optional(v.pipe(v.string('Give namespace once.'), v.description('the flag namespace; default when absent'))) });

export const flagAdminService = service({
  name: 'web API: feature flags',
  basePath: '/web-api/v1/flags',
  endpoints: {
    list: endpoint({
      method: 'get', path: '/', access: { resource: 'flags', action: 'view' }, query: namespaceQuery,
      response: v.object({ namespace: v.string(), flags: v.array(StoredFlagSchema) }), summary: 'The tenant\'s flags as administrators edit them.',
    }),
    get: endpoint({ method: 'get', path: '/:key', access: { resource: 'flags', action: 'view' }, query: namespaceQuery, response: StoredFlagSchema, summary: 'One flag.' }),
    put: endpoint({
      method: 'put', path: '/:key', access: { resource: 'flags', action: 'edit' }, query: namespaceQuery, body: FlagDefinitionSchema, response: StoredFlagSchema,
      summary: 'Creates (201) or replaces (200) a flag.',
    }),
    setEnabled: endpoint({
      method: 'patch', path: '/:key', access: { resource: 'flags', action: 'edit' }, query: namespaceQuery, body: FlagEnabledSchema, response: StoredFlagSchema,
      summary: 'Turns a flag\'s enabled switch (for a boolean flag, its default value).',
    }),
    remove: endpoint({ method: 'delete', path: '/:key', access: { resource: 'flags', action: 'delete' }, query: namespaceQuery, response: null, status: 204, summary: 'Deletes a flag.' }),
  },
});
