/**
 * What a connector reads once a run: the engine keeps one context for a formula's end while it
 * runs, so a value kept against that context (a vendor's list of funds, its journals, the journal
 * entry batch the run writes into) lasts the run and no longer. A load that fails is forgotten, so
 * the next record asks again instead of living with a failure.
 */
import type { ConnectorContext } from '../connector.ts';

const kept = new WeakMap<ConnectorContext, Map<string, Promise<unknown>>>();

export function perRun<T>(ctx: ConnectorContext, key: string, load: () => Promise<T>): Promise<T> {
  let values = kept.get(ctx);
  if (!values) kept.set(ctx, (values = new Map()));
  let value = values.get(key) as Promise<T> | undefined;
  if (!value) {
    value = load();
    value.catch(() => { if (values!.get(key) === value) values!.delete(key); });
    values.set(key, value);
  }
  return value;
}

/** Forgets what the run kept under `key` (a batch the vendor no longer takes). */
export function forgetPerRun(ctx: ConnectorContext, key: string): void {
  kept.get(ctx)?.delete(key);
}
