/**
 * What a vendor says of its fields is read once per connector context (a run keeps one context for
 * its end): `once` answers the same promise for the same context and key, and forgets a failure so
 * the next call asks again.
 */
import type { ConnectorContext } from '../connector.ts';

const memos = new WeakMap<ConnectorContext, Map<string, Promise<unknown>>>();

export function once<T>(ctx: ConnectorContext, key: string, load: () => Promise<T>): Promise<T> {
  let byKey = memos.get(ctx);
  if (!byKey) memos.set(ctx, (byKey = new Map()));
  let p = byKey.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    p.catch(() => byKey!.delete(key));
    byKey.set(key, p);
  }
  return p;
}
