/**
 * The formulas' status changes as they happen, for the status stream (server/http/formulaStatusStream.ts).
 *
 * Every change is announced by PostgreSQL (`pg_notify('formula_status', '<tenantId>:<formulaId>')`,
 * in the formulas repository's setRunState). One hub per connection pool, so one per process,
 * holds one LISTEN connection while anyone is subscribed, and releases it when the last one
 * leaves. A notification reaches the subscribers of its tenant only: their status is computed once
 * for the tenant and handed to each. When the LISTEN connection drops, the hub connects again
 * (waiting longer after each failure) and then sends every subscriber a fresh snapshot, since
 * changes made meanwhile were announced to nobody.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { FormulaStatus } from '../../src/domain/api/formulas.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { FORMULA_STATUS_CHANNEL } from '../db/repositories/formulas.ts';

export const STATUS_CHANNEL = FORMULA_STATUS_CHANNEL;

/** One open stream: its tenant, and how it is told. */
export interface StatusSubscriber {
  tenantId: string;
  /** the formula's status in this subscriber's tenant scope */
  status(formulaId: string): Promise<FormulaStatus>;
  push(status: FormulaStatus): void;
  /** changes may have been missed: send every status again */
  resync(): void;
}

const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 30_000;

export class FormulaStatusHub {
  private readonly byTenant = new Map<string, Set<StatusSubscriber>>();
  private client: pg.PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelay = RECONNECT_FIRST_MS;
  /** set once a LISTEN connection was lost: the next one resyncs the subscribers */
  private lost = false;
  /** the listeners put on each connection taken from the pool, until it is let go */
  private readonly handlers = new Map<pg.PoolClient, { error(err: Error): void; end(): void; notification(msg: pg.Notification): void }>();
  /** per formula: a status being computed, and whether another notification came meanwhile */
  private readonly refreshing = new Map<string, { again: boolean }>();

  constructor(private readonly pool: pg.Pool, private readonly log: Logger) {}

  /** open streams, over every tenant */
  get subscriberCount(): number {
    let n = 0;
    for (const set of this.byTenant.values()) n += set.size;
    return n;
  }

  /** whether a LISTEN connection is held now */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Adds a subscriber (and starts listening with the first); answers how to remove it. */
  subscribe(sub: StatusSubscriber): () => void {
    let set = this.byTenant.get(sub.tenantId);
    if (!set) this.byTenant.set(sub.tenantId, (set = new Set()));
    set.add(sub);
    this.listen();
    let gone = false;
    return () => {
      if (gone) return;
      gone = true;
      const mine = this.byTenant.get(sub.tenantId);
      mine?.delete(sub);
      if (mine && mine.size === 0) this.byTenant.delete(sub.tenantId);
      if (this.subscriberCount === 0) this.stop();
    };
  }

  private listen(): void {
    if (this.client || this.connecting || this.reconnectTimer) return;
    this.connecting = this.connect().finally(() => { this.connecting = null; });
  }

  private async connect(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.log.warn({ err }, 'status stream: cannot connect to listen');
      this.lost = true;
      this.retryLater();
      return;
    }
    const handlers = {
      error: (err: Error) => this.dropped(client, err),
      end: () => this.dropped(client),
      notification: (msg: pg.Notification) => {
        if (msg.channel === STATUS_CHANNEL && msg.payload) this.notified(msg.payload);
      },
    };
    this.handlers.set(client, handlers);
    client.on('error', handlers.error);
    client.on('end', handlers.end);
    client.on('notification', handlers.notification);
    try {
      await client.query(`LISTEN ${STATUS_CHANNEL}`);
    } catch (err) {
      this.dropped(client, err as Error);
      return;
    }
    if (!this.handlers.has(client)) return;
    this.client = client;
    this.reconnectDelay = RECONNECT_FIRST_MS;
    if (this.subscriberCount === 0) {
      this.stop();
      return;
    }
    if (this.lost) {
      this.lost = false;
      this.log.info('status stream: listening again');
      for (const set of this.byTenant.values()) for (const sub of set) sub.resync();
    }
  }

  /** Gives a listening connection back to the pool, destroyed: a pooled connection must not keep listening. */
  private letGo(client: pg.PoolClient, err?: Error): boolean {
    const handlers = this.handlers.get(client);
    if (!handlers) return false;
    this.handlers.delete(client);
    client.off('notification', handlers.notification);
    client.off('end', handlers.end);
    client.off('error', handlers.error);
    // a late error of a connection let go must not end the process
    client.on('error', () => undefined);
    try { client.release(err ?? true); } catch { /* released already */ }
    if (this.client === client) this.client = null;
    return true;
  }

  /** The LISTEN connection failed or ended: listen again while anyone is subscribed. */
  private dropped(client: pg.PoolClient, err?: Error): void {
    if (!this.letGo(client, err)) return;
    this.log.warn({ err }, 'status stream: the listening connection was lost');
    this.lost = true;
    this.retryLater();
  }

  private retryLater(): void {
    if (this.subscriberCount === 0 || this.reconnectTimer || (this.pool as { ending?: boolean }).ending) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.subscriberCount > 0) this.listen();
    }, delay);
  }

  /** Nobody listens any more: give the connection back, and forget the lost one. */
  private stop(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.lost = false;
    this.reconnectDelay = RECONNECT_FIRST_MS;
    if (this.client) this.letGo(this.client);
  }

  private notified(payload: string): void {
    const at = payload.indexOf(':');
    if (at <= 0) return;
    const tenantId = payload.slice(0, at);
    const formulaId = payload.slice(at + 1);
    if (!this.byTenant.get(tenantId)?.size) return;
    void this.refresh(tenantId, formulaId);
  }

  /**
   * Computes the formula's status once for its tenant and pushes it to each of the tenant's
   * subscribers. One computation per formula at a time: notifications that come meanwhile cause
   * one more, so the last status pushed is never older than the last change.
   */
  private async refresh(tenantId: string, formulaId: string): Promise<void> {
    const key = `${tenantId}:${formulaId}`;
    const running = this.refreshing.get(key);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: true };
    this.refreshing.set(key, state);
    try {
      while (state.again) {
        state.again = false;
        const first = this.byTenant.get(tenantId)?.values().next().value;
        if (!first) return;
        let status: FormulaStatus;
        try {
          status = await first.status(formulaId);
        } catch (err) {
          // deleted since: nothing to tell
          if (!(err instanceof DomainError && err.title === 'not-found')) this.log.error({ err, formulaId }, 'status stream: cannot compute a status');
          continue;
        }
        for (const sub of this.byTenant.get(tenantId) ?? []) sub.push(status);
      }
    } finally {
      this.refreshing.delete(key);
    }
  }
}

const hubs = new WeakMap<pg.Pool, FormulaStatusHub>();

/** The hub of this connection pool: one per process (tests start several servers, each with its pool). */
export function formulaStatusHub(pool: pg.Pool, log: Logger): FormulaStatusHub {
  let hub = hubs.get(pool);
  if (!hub) hubs.set(pool, (hub = new FormulaStatusHub(pool, log)));
  return hub;
}
