/**
 * Routes from contracts (src/domain/api): a router registers each endpoint of its service with
 * `on(endpoint, handler)`, which puts the endpoint's access rule and query and body validation in
 * front of the handler and answers the handler's value as the endpoint's JSON. Outside production every
 * answer is also checked against the endpoint's response schema, so a router that drifts from its
 * contract fails its tests.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import * as v from 'valibot';
import type { Endpoint, ParamsOf, ParsedQueryOf, ResponseOf } from '../../src/domain/api/contract.ts';
import { requirePolicy, requireTenant, type Auth } from './auth.ts';
import type { AppEnv, TenantEnv } from './env.ts';
import { jsonBody, queryParams } from './validation.ts';

type EnvOf<E extends Endpoint> = E['access'] extends 'public' | 'signed-in' ? AppEnv : AppEnv & TenantEnv;

export interface Input<E extends Endpoint> {
  params: E extends Endpoint<v.GenericSchema | undefined, v.GenericSchema | null, infer P> ? Record<ParamsOf<P>, string> : never;
  body: E extends Endpoint<infer B, v.GenericSchema | null, string> ? (B extends v.GenericSchema ? v.InferOutput<B> : undefined) : never;
  query: ParsedQueryOf<E>;
}

export type ContractHandler<E extends Endpoint> =
  (c: Context<EnvOf<E>>, input: Input<E>) => Promise<ResponseOf<E> | Response> | ResponseOf<E> | Response;

const checkResponses = process.env.NODE_ENV !== 'production';

export function contractRouter(auth: Pick<Auth, 'signedIn'>) {
  const app = new Hono<AppEnv>();
  const { signedIn } = auth;

  function on<E extends Endpoint>(e: E, handler: ContractHandler<E>): void {
    const guards: MiddlewareHandler[] = [];
    if (e.access !== 'public') guards.push(signedIn as MiddlewareHandler);
    if (e.access === 'tenant') guards.push(requireTenant() as MiddlewareHandler);
    else if (typeof e.access === 'object') guards.push(requirePolicy(e.access.resource, e.access.action) as MiddlewareHandler);
    if (e.query) guards.push(queryParams(e.query) as unknown as MiddlewareHandler);
    if (e.body) guards.push(jsonBody(e.body) as unknown as MiddlewareHandler);

    app.on([e.method.toUpperCase()], [e.path], ...guards, async (c: Context<AppEnv>) => {
      const input = {
        params: c.req.param() as Input<E>['params'],
        body: (e.body ? c.req.valid('json' as never) : undefined) as Input<E>['body'],
        query: (e.query ? c.req.valid('query' as never) : undefined) as Input<E>['query'],
      };
      const out = await handler(c as unknown as Context<EnvOf<E>>, input);
      if (out instanceof Response) return out;
      if (e.response === null) return c.body(null, (e.status ?? 204) as 204);
      if (checkResponses) {
        const checked = v.safeParse(e.response, out);
        if (!checked.success) throw new Error(`${e.method.toUpperCase()} ${e.path} answered outside its contract: ${v.summarize(checked.issues)}`);
      }
      return c.json(out as object, (e.status ?? 200) as 200);
    });
  }

  return { app, on };
}
