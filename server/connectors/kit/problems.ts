/**
 * The two vendor answers that retrying cannot mend and that users must hear about in words: a
 * grant the vendor no longer accepts (the data source needs reconnecting) and a spent quota (the
 * formula waits until the vendor renews it, instead of failing ten times).
 */
import { ConnectionProblem } from '../connector.ts';

/** The vendor refused the connection's grant (revoked, expired, or consent withdrawn). */
export class GrantRevoked extends ConnectionProblem {
  constructor(readonly system: string, detail: string) {
    super('clientdatasource-connection-failed', detail);
  }
}

/** The vendor's quota is spent until `resumeAt`: the formula pauses with this reason and goes on then. */
export class QuotaExhausted extends ConnectionProblem {
  constructor(detail: string, readonly resumeAt: Date) {
    super('processing-error', detail);
  }
}

/** The words users read when a data source needs reconnecting. */
export const needsReconnectingMessage = (name: string) =>
  `${name} no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.`;

/**
 * Retry-After as RFC 9110 gives it: seconds, or an HTTP date. Answers milliseconds from `now`
 * (null when absent or unreadable).
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
