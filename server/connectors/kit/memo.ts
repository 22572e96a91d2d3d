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

const lasting = new Map<string, Promise<unknown>>();

/**
 * What an account says of itself that does not change while its credentials stay the same
 * (Mailchimp's data centre, HubSpot's portal and app domain): asked once per `key` (a hash of the
 * credentials) in this process, however many contexts ask; a failure is asked again next time.
 */
export function oncePerAccount<T>(key: string, load: () => Promise<T>): Promise<T> {
  let p = lasting.get(key) as Promise<T> | undefined;
  if (!p) {
    p = load();
    const held = p;
    held.catch(() => { if (lasting.get(key) === held) lasting.delete(key); });
    lasting.set(key, held);
  }
  return p;
}
