/**
 * The formulas' status stream (GET /web-api/v1/formulas/status-stream): server-sent events, so it
 * is no JSON contract of ./contract.ts. Described here once: the server answers it, the browser
 * reads it, and the OpenAPI document lists it.
 *
 * The stream opens with `event: snapshot` (every formula's status, as GET /statuses answers), then
 * sends `event: status` with a formula's status whenever its run state changes, and a comment line
 * every 25 seconds so that a silent stream can be told from a dead one.
 */
import * as v from 'valibot';
import type { Access } from './contract.ts';
import { FormulaStatusSchema } from './formulas.ts';

export interface EventStream {
  path: string;
  summary: string;
  /** the gateway service it belongs to, as its contract names it */
  service: string;
  access: Exclude<Access, 'public'>;
  /** each event's name and the JSON schema of its data */
  events: Record<string, v.GenericSchema>;
  heartbeatMs: number;
}

export const StatusSnapshotSchema = v.object({ statuses: v.array(FormulaStatusSchema) });

export const formulaStatusStream = {
  path: '/web-api/v1/formulas/status-stream',
  summary: 'Server-sent events: every formula\'s status at once (event snapshot), then each formula\'s status when its run state changes (event status), '
    + 'and a comment line every 25 seconds. Send Accept: text/event-stream.',
  service: 'web API: formulas',
  access: { resource: 'formula', action: 'view' },
  events: { snapshot: StatusSnapshotSchema, status: FormulaStatusSchema },
  heartbeatMs: 25_000,
} as const satisfies EventStream;

/** A stream that has sent nothing, not even a heartbeat, for this long is taken for dead. */
export const STATUS_STREAM_SILENCE_MS = 60_000;
/** Without the stream, the browser asks GET /statuses this often. */
export const STATUS_POLL_INTERVAL_MS = 15_000;
/** While polling, the browser tries the stream again this often. */
export const STATUS_STREAM_RETRY_MS = 2 * 60_000;
