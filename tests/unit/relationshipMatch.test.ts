/**
 * A record that names a parent the destination does not hold yet (a gift whose constituent is not
 * there) waits in relationship-match for review instead of being matched and sent; one whose
 * parent is there goes on to matching. The destination here is a fake of the connector interface.
 */
import { describe, expect, it } from 'vitest';
import type { Connector, SearchQuery } from '../../server/connectors/connector.ts';
import { processBatch } from '../../server/engine/process.ts';
import type { FormulaPlan } from '../../server/engine/plan.ts';

const CONSTITUENTS = new Set(['SC-1', 'SC-2']);

function fakeDestination(asked: { object: string; queries: SearchQuery[] }[]): Connector {
  return {
    system: 'sandbox-crm',
    searchMany: async (_ctx, object, queries) => {
      asked.push({ object, queries });
      if (object === 'constituents') return queries.map((q) => (CONSTITUENTS.has(q.criteria[0]!.value) ? [{ id: q.criteria[0]!.value, fields: { lookupId: q.criteria[0]!.value } }] : []));
      return queries.map(() => []);
    },
  } as Partial<Connector> as Connector;
}

function plan(connector: Connector, mapsReference = true): FormulaPlan {
  return {
    destination: { system: 'sandbox-crm', connector, ctx: {} as never, object: 'gifts', settings: {} },
    mapping: {
      fields: [
        { destination: 'constituentLookupId', kind: 'source', source: 'Donor' },
        { destination: 'amount', kind: 'source', source: 'Amount' },
        { destination: 'lookupId', kind: 'source', source: 'Gift' },
      ],
    },
    transform: null,
    validation: null,
    matching: { scenarios: [{ name: 'Gift', criteria: [{ source: 'Gift', destination: 'lookupId' }], matchReason: 'Same gift', isPrimary: true }], advanced: false, autoPick: [] },
    routing: { kind: 'default', unmatched: 'ready', singleMatch: 'needs-attention', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
    schedule: null,
    autosend: true,
    mappedFields: ['constituentLookupId', 'amount', 'lookupId'],
    // no earlier batch: the formula holds no new person still to be sent
    formula: { id: 'f1' },
    tenant: { records: { unsentNew: async () => new Set<string>(), firstsByCopyKeys: async () => [] } },
    references: mapsReference ? [{ field: 'constituentLookupId', object: 'constituents', by: 'lookupId', label: 'constituent' }] : [],
  } as unknown as FormulaPlan;
}

const gifts = [
  { sourceKey: 'g1', raw: { Donor: 'SC-1', Amount: '10.00', Gift: 'G-1' } },
  { sourceKey: 'g2', raw: { Donor: 'SC-9', Amount: '20.00', Gift: 'G-2' } },
  { sourceKey: 'g3', raw: { Donor: 'SC-9', Amount: '30.00', Gift: 'G-3' } },
];

describe('relationship-match', () => {
  it('holds a gift whose constituent is missing for review, with the reason, and matches the rest', async () => {
    const asked: { object: string; queries: SearchQuery[] }[] = [];
    const out = await processBatch(plan(fakeDestination(asked)), gifts);
    expect(out.map((r) => [r.sourceKey, r.bucket, r.state])).toEqual([
      ['g1', 'new', 'ready'],
      ['g2', 'relationship-match', 'needs-attention'],
      ['g3', 'relationship-match', 'needs-attention'],
    ]);
    expect(out[1]!.errorReason).toBe('Waiting for its constituent SC-9, which the destination does not hold yet.');
    expect(out[1]!.matching).toEqual({ waitingFor: { object: 'constituents', field: 'lookupId', value: 'SC-9' } });
    // one search per parent value, and waiting gifts are not matched
    const parents = asked.filter((a) => a.object === 'constituents');
    expect(parents).toHaveLength(1);
    expect(parents[0]!.queries.map((q) => q.criteria[0]!.value)).toEqual(['SC-1', 'SC-9']);
    expect(asked.filter((a) => a.object === 'gifts').flatMap((a) => a.queries.map((q) => q.criteria[0]!.value))).toEqual(['G-1']);
  });

  it('checks nothing when the formula does not map the reference', async () => {
    const asked: { object: string; queries: SearchQuery[] }[] = [];
    const out = await processBatch(plan(fakeDestination(asked), false), gifts);
    expect(out.every((r) => r.bucket === 'new')).toBe(true);
    expect(asked.every((a) => a.object === 'gifts')).toBe(true);
  });
});
