/**
 * The flag client's I/O (SPEC.md sections 1, 7 and 8): the snapshot from
 * /internal/v1/evaluation/snapshot/namespace/{namespace} on the same origin, with the identity
 * headers of every gateway call (flags belong to the tenant the tenantId header names), sent with
 * If-None-Match once an ETag is known; 304 means not modified. Any failure is a FlagFetchError
 * worded 'Failed to fetch data: <status text>' as Flipt's client words it.
 * Also the administration calls of /web-api/v1/flags.
 */
import { flagAdminService } from '../domain/api/flags.ts';
import { ApiError, gatewayClient, serviceClient, type RequestOptions } from './gateway.ts';
import { type FlagDefinition, type StoredFlag } from '../domain/flags/definitions.ts';
import { DEFAULT_FLAG_NAMESPACE, flagFetchFailedMessage, parseFlagSnapshot, type FlagSnapshot } from '../domain/flags/snapshot.ts';

export class FlagFetchError extends Error {
  override name = 'FlagFetchError';
  constructor(readonly status: number, readonly statusText: string) {
    super(flagFetchFailedMessage(statusText));
  }
}

export type SnapshotResult =
  | { status: 'fetched'; snapshot: FlagSnapshot; etag: string | null }
  | { status: 'not-modified' };

export interface SnapshotRequest {
  namespace?: string;
  /** the ETag of the snapshot in hand, sent as If-None-Match */
  etag?: string | null;
  reference?: string;
}

/** HTTP/2 carries no reason phrase: the usual one stands in for it. */
const REASONS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 408: 'Request Timeout', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};
const statusTextOf = (status: number, text: string) => text || REASONS[status] || `HTTP ${status}`;

const snapshotClient = gatewayClient('/internal/v1/evaluation/snapshot');

export async function fetchFlagSnapshot(req: SnapshotRequest = {}): Promise<SnapshotResult> {
  const namespace = req.namespace ?? DEFAULT_FLAG_NAMESPACE;
  let response: Response;
  try {
    response = await snapshotClient.get(`namespace/${encodeURIComponent(namespace)}`, {
      searchParams: req.reference ? { reference: req.reference } : undefined,
      headers: req.etag ? { 'If-None-Match': req.etag } : undefined,
      throwHttpErrors: false,
    });
  } catch (err) {
    if (err instanceof ApiError) throw new FlagFetchError(err.status, statusTextOf(err.status, ''));
    throw new FlagFetchError(0, err instanceof Error && err.message ? err.message : 'Network error');
  }
  if (response.status === 304) return { status: 'not-modified' };
  if (!response.ok) throw new FlagFetchError(response.status, statusTextOf(response.status, response.statusText));
  let body: unknown;
  try {
    body = await response.json();
    return { status: 'fetched', snapshot: parseFlagSnapshot(body, namespace), etag: response.headers.get('etag') };
  } catch (err) {
    throw new FlagFetchError(response.status, err instanceof Error ? err.message : 'The flag snapshot could not be read');
  }
}

const adminClient = serviceClient(flagAdminService);

/** Administration of one tenant's flags (the `flags` policy; Administrators only). */
export const flagAdmin = {
  list: async (o?: RequestOptions): Promise<StoredFlag[]> => (await adminClient.call('list', {}, o)).flags,
  save: (flagKey: string, definition: FlagDefinition, o?: RequestOptions): Promise<StoredFlag> =>
    adminClient.call('put', { params: { key: flagKey }, body: definition }, o),
  setEnabled: (flagKey: string, enabled: boolean, o?: RequestOptions): Promise<StoredFlag> =>
    adminClient.call('setEnabled', { params: { key: flagKey }, body: { enabled } }, o),
  remove: (flagKey: string, o?: RequestOptions) => adminClient.call('remove', { params: { key: flagKey } }, o),
};
export type FlagAdmin = typeof flagAdmin;
