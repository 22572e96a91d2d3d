/**
 * One ky client per gateway service. Every authenticated request carries the bearer token and the
 * identity headers (SPEC.md section 7); an error answer becomes an ApiError holding the problem.
 */
import ky, { HTTPError, type KyInstance } from 'ky';
import { fillPath, type BodyOf, type Endpoint, type ParamsOf, type QueryInput, type QueryOf, type ResponseOf, type Service } from '../domain/api/contract.ts';
import type { Problem } from '../domain/errors.ts';

export interface IdentityHeaders {
  token: string;
  orgId: string;
  clientId: string;
  userId: string;
  userEmail: string;
  tenantId?: string | null;
}

let identity: (() => Promise<IdentityHeaders>) | null = null;

/** The authentication machine sets this once the user is signed in, and clears it on logout. */
export function setIdentitySource(source: (() => Promise<IdentityHeaders>) | null): void {
  identity = source;
}

/** The identity headers of the signed-in session, for requests made without ky (upload progress needs XHR). */
export async function identityHeaders(): Promise<Record<string, string>> {
  if (!identity) throw new ApiError(401, { title: 'unauthenticated', status: 401 });
  const h = await identity();
  return {
    Authorization: `Bearer ${h.token}`,
    orgId: h.orgId,
    clientId: h.clientId,
    userId: h.userId,
    userEmail: h.userEmail,
    ...(h.tenantId ? { tenantId: h.tenantId } : {}),
  };
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly problem: Partial<Problem>, readonly options: RequestOptions = {}) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

export interface RequestOptions {
  /** the caller shows this error itself: the global handler stays quiet */
  silent?: boolean;
  /** route the error to this formula's handler */
  formulaId?: string;
}

export type ErrorListener = (error: ApiError) => void;
const listeners = new Set<ErrorListener>();
/** The global HTTP error handling (SPEC.md section 8) listens here. */
export function onApiError(listener: ErrorListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function gatewayClient(basePath: string, opts: { authenticated?: boolean } = {}): KyInstance {
  return ky.create({
    prefix: basePath,
    timeout: 30_000,
    retry: 0,
    hooks: {
      beforeRequest: [async ({ request }) => {
        if (opts.authenticated === false) return;
        for (const [k, v] of Object.entries(await identityHeaders())) request.headers.set(k, v);
      }],
    },
  });
}

/** Runs a request, turning an HTTP error into an ApiError and telling the global handler. */
export async function request<T>(run: () => Promise<T>, options: RequestOptions = {}): Promise<T> {
  try {
    return await run();
  } catch (err) {
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else if (err instanceof HTTPError) {
      // ky 2 has already read the error body into `data`
      const problem = (err.data && typeof err.data === 'object' ? err.data : {}) as Partial<Problem>;
      apiError = new ApiError(err.response.status, { status: err.response.status, ...problem }, options);
    } else {
      apiError = new ApiError(0, { title: 'network', detail: err instanceof Error ? err.message : String(err) }, options);
    }
    Object.assign(apiError, { options });
    for (const l of listeners) l(apiError);
    throw apiError;
  }
}

type ArgsOf<E> = E extends Endpoint<infer B, infer _R, infer P>
  ? ([ParamsOf<P>] extends [never] ? { params?: undefined } : { params: Record<ParamsOf<P>, string> })
    & (B extends undefined ? { body?: undefined } : { body: BodyOf<E> })
    & ([QueryOf<E>] extends [never] ? { query?: undefined } : { query?: QueryOf<E> })
  : never;

/** A query as search parameters: a repeated parameter once per value, an absent one not at all. */
function searchParamsOf(query: QueryInput | undefined): URLSearchParams | undefined {
  if (!query) return undefined;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(name, one);
  }
  return params;
}

/**
 * A typed client of one service: `client.call('currentUser', { params: { orgId } })` sends the
 * endpoint's method to its path and answers its contract's response type (src/domain/api).
 */
export function serviceClient<S extends Service>(service: S, opts: { authenticated?: boolean } = {}) {
  // the whole path, not a prefix: an endpoint at '/' is the base path itself, with no trailing slash
  const http = gatewayClient('', opts);
  return {
    call<K extends keyof S['endpoints'] & string>(name: K, args: ArgsOf<S['endpoints'][K]>, options?: RequestOptions): Promise<ResponseOf<S['endpoints'][K]>> {
      const e = service.endpoints[name]!;
      const a = args as { params?: Record<string, string>; body?: unknown; query?: QueryInput };
      const path = `${service.basePath}${e.path === '/' ? '' : fillPath(e.path, a.params ?? {})}`;
      return request(async () => {
        const res = await http(path, { method: e.method, json: a.body, searchParams: searchParamsOf(a.query) });
        return (e.response === null || res.status === 204 ? undefined : await res.json()) as ResponseOf<S['endpoints'][K]>;
      }, options);
    },
  };
}
