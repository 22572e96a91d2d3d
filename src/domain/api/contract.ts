/**
 * API contracts (DESIGN.md section 4a): each endpoint of a gateway service is described once, here
 * in src/domain/api, with valibot schemas for its request and response. The Hono routers register
 * their routes from these descriptions and validate requests with them (server/http/routes.ts), the
 * browser's ky clients take their types from them (src/services/gateway.ts), and the OpenAPI
 * document is generated from them (server/http/openapi.ts), so the three cannot drift.
 */
import type * as v from 'valibot';
import type { ProblemTitle } from '../errors.ts';
import type { Action, Resource } from '../roles.ts';
import { capText } from './textCap.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A query's parameters as they arrive: a string each, or an array of strings when one is repeated. */
export type QueryInput = Record<string, string | string[] | undefined>;
/**
 * The query an endpoint takes: a valibot object schema over QueryInput, whose entries carry their
 * descriptions (`v.description`) for the OpenAPI document. Parameters it does not name are ignored.
 */
export type QuerySchema = v.GenericSchema<QueryInput, unknown>;

/** Who may call: anyone, any signed-in user, a member of the tenant named by tenantId, or a policy in it. */
export type Access = 'public' | 'signed-in' | 'tenant' | { resource: Resource; action: Action };

export interface Endpoint<
  B extends v.GenericSchema | undefined = v.GenericSchema | undefined,
  R extends v.GenericSchema | null = v.GenericSchema | null,
  P extends string = string,
  Q extends QuerySchema | undefined = QuerySchema | undefined,
> {
  method: Method;
  /** the path under the service's base, with `:param` segments (Hono's syntax) */
  path: P;
  summary: string;
  access: Access;
  /** the JSON request body */
  body?: B;
  /** the JSON response of a success; null for an empty one (204) */
  response: R;
  /** the success status; 200 unless said */
  status?: number;
  /** the problem titles this endpoint answers beyond the usual 400, 401, 403 and 404 */
  problems?: ProblemTitle[];
  /** the query parameters, checked like the body */
  query?: Q;
}

export interface Service<E extends Record<string, Endpoint> = Record<string, Endpoint>> {
  /** the gateway service's name, as DESIGN.md section 4 lists it */
  name: string;
  basePath: string;
  endpoints: E;
}

/**
 * Keeps an endpoint's literal schema types, so body and response stay typed where it is used; its
 * body and query take text only up to a length (textCap.ts), whatever their fields say.
 */
export const endpoint = <
  B extends v.GenericSchema | undefined = undefined, R extends v.GenericSchema | null = null, const P extends string = string,
  Q extends QuerySchema | undefined = undefined,
>(e: Endpoint<B, R, P, Q>): Endpoint<B, R, P, Q> => ({
  ...e,
  ...(e.body ? { body: capText(e.body) } : {}),
  ...(e.query ? { query: capText(e.query) } : {}),
});
export const service = <E extends Record<string, Endpoint>>(s: Service<E>) => s;

/** The body an endpoint takes, and the response it gives. */
export type BodyOf<E> = E extends Endpoint<infer B, v.GenericSchema | null, string> ? (B extends v.GenericSchema ? v.InferInput<B> : never) : never;
export type ResponseOf<E> = E extends Endpoint<v.GenericSchema | undefined, infer R, string> ? (R extends v.GenericSchema ? v.InferOutput<R> : void) : never;
/** The query an endpoint takes as a caller writes it, and as its handler receives it. */
export type QueryOf<E> = E extends Endpoint<v.GenericSchema | undefined, v.GenericSchema | null, string, infer Q> ? (Q extends QuerySchema ? v.InferInput<Q> : never) : never;
export type ParsedQueryOf<E> = E extends Endpoint<v.GenericSchema | undefined, v.GenericSchema | null, string, infer Q> ? (Q extends QuerySchema ? v.InferOutput<Q> : undefined) : never;

/** The `:param` names of a path, as a type. */
export type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}` ? Name : never;

/** Fills a path's `:param` segments, each encoded. */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/:([A-Za-z]\w*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
