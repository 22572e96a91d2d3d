/**
 * The formulas' status stream (src/domain/api/formulaStatusStream.ts): server-sent events of each
 * formula's status as its run state changes, told by the status hub (server/services/formulaStatusHub.ts).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { formulaStatusStream } from '../../src/domain/api/formulaStatusStream.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { can, policiesFor } from '../../src/domain/roles.ts';
import type { TenantScope } from '../db/tenancy.ts';
import type { FormulaRunsService } from '../services/formulaRuns.ts';
import type { FormulaStatusHub } from '../services/formulaStatusHub.ts';
import { requirePolicy, type Auth } from './auth.ts';
import type { AppEnv, TenantEnv } from './env.ts';
import { fail } from './problem.ts';

/** named, not merely accepted with any other type: fetch's default Accept is any type, and this answer never ends */
const wantsEventStream = (accept: string | undefined) => !!accept && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept);

export function formulaStatusStreamRouter(
  services: { formulaRuns: Pick<FormulaRunsService, 'status' | 'statuses'>; statusHub: FormulaStatusHub },
  auth: Auth,
  opts: { heartbeatMs?: number } = {},
) {
  const { formulaRuns: runs, statusHub: hub } = services;
  const heartbeatMs = opts.heartbeatMs ?? formulaStatusStream.heartbeatMs;
  const app = new Hono<AppEnv>();
  const { resource, action } = formulaStatusStream.access;

  app.get('/', auth.signedIn, requirePolicy(resource, action) as unknown as MiddlewareHandler<AppEnv>, (c) => {
    // an answer that never ends is only for a client that asked for one
    if (!wantsEventStream(c.req.header('accept'))) fail('bad-request', 'This is an event stream: ask for it with Accept: text/event-stream.');
    const tenant = (c as unknown as { var: TenantEnv['Variables'] }).var.tenant as TenantScope;
    const log = c.var.log;
    const { caller, token } = c.var;
    /**
     * What the request was allowed when the stream opened may not hold for its whole life: before
     * each write the token must be unexpired, and the account, its sessions, its membership of the
     * tenant and the role's formula view are read again (never cached, DESIGN.md section 4a).
     */
    const stillAllowed = async () => {
      if (Date.now() >= token.expiresAt) return false;
      try {
        const { roles } = await auth.currentAccess({ sub: caller.auth0Id, tenantId: tenant.tenantId, signedInAt: token.signedInAt });
        return can(policiesFor(roles), resource, action);
      } catch (err) {
        if (err instanceof DomainError) return false;
        throw err;
      }
    };
    c.header('X-Accel-Buffering', 'no');

    return streamSSE(c, async (stream) => {
      let finish = () => {};
      const finished = new Promise<void>((resolve) => { finish = resolve; });
      stream.onAbort(() => finish());
      c.req.raw.signal.addEventListener('abort', () => finish(), { once: true });

      // one write at a time, in order: the snapshot before any status that followed it
      let queue = Promise.resolve();
      const write = (make: () => Promise<string> | string) => {
        queue = queue.then(async () => {
          if (stream.aborted || stream.closed) return;
          if (!(await stillAllowed())) {
            log.info({ user: caller.userId, tenantId: tenant.tenantId }, 'status stream: access ended; closing the stream');
            finish();
            return;
          }
          const text = await make();
          if (!stream.aborted) await stream.write(text);
        }).catch((err: unknown) => {
          // without its snapshot the stream is no use: end it, and the browser polls instead
          log.warn({ err }, 'status stream: a write failed; closing the stream');
          finish();
        });
      };
      const event = (name: keyof typeof formulaStatusStream.events, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
      const snapshot = () => write(async () => event('snapshot', { statuses: await runs.statuses(tenant) }));

      const unsubscribe = hub.subscribe({
        tenantId: tenant.tenantId,
        status: (formulaId) => runs.status(tenant, formulaId),
        push: (status) => write(() => event('status', status)),
        resync: snapshot,
      });
      snapshot();
      // a heartbeat writes, so it checks too: a removed user's stream closes with no status to push
      const heartbeat = setInterval(() => write(() => ': heartbeat\n\n'), heartbeatMs);
      // the token's end closes the stream; the browser opens another with a fresh token
      const expiry = setTimeout(() => finish(), Math.min(Math.max(0, token.expiresAt - Date.now()), 2 ** 31 - 1));
      try {
        await finished;
      } finally {
        clearInterval(heartbeat);
        clearTimeout(expiry);
        unsubscribe();
      }
    });
  });

  return app;
}
