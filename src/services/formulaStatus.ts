/**
 * Formulas' live statuses (SPEC.md section 4) and the commands of a live formula.
 *
 * The status stream (src/domain/api/formulaStatusStream.ts) is read with fetch and the response's
 * ReadableStream, not EventSource, which cannot send the bearer token and identity headers every
 * call carries. When it cannot be read, GET /statuses answers the same statuses (the job-status
 * machine polls it). Errors are the caller's to show: every call here is silent.
 */
import * as v from 'valibot';
import { FormulaStatusSchema, formulasService, type FormulaStatus } from '../domain/api/formulas.ts';
import { StatusSnapshotSchema, formulaStatusStream } from '../domain/api/formulaStatusStream.ts';
import type { FormulaCommandName } from '../domain/formula/commands.ts';
import { ApiError, identityHeaders, serviceClient } from './gateway.ts';

export type { FormulaStatus };

const client = serviceClient(formulasService);
const quiet = { silent: true };

/** Every formula's status (what the stream's snapshot holds). */
export async function fetchStatuses(): Promise<FormulaStatus[]> {
  return (await client.call('statuses', {}, quiet)).statuses;
}

/** Runs a command on a formula; answers the formula's status when the endpoint gives it. */
export async function runFormulaCommand(name: FormulaCommandName, formulaId: string, opts: { includeReviewed?: boolean } = {}): Promise<FormulaStatus | null> {
  const params = { id: formulaId };
  switch (name) {
    case 'run': await client.call('run', { params, body: {} }, quiet); return null;
    case 'retryNow': return client.call('retryNow', { params }, quiet);
    case 'reprocess': await client.call('reprocess', { params, ...(opts.includeReviewed ? { query: { includeReviewed: 'true' } } : {}) }, quiet); return null;
    case 'activate': await client.call('activate', { params }, quiet); return null;
    case 'pause': return client.call('pause', { params }, quiet);
    case 'resume': return client.call('resume', { params }, quiet);
    case 'deactivate': return client.call('deactivate', { params }, quiet);
    case 'clear': return client.call('clear', { params }, quiet);
    case 'dismiss': return client.call('dismissError', { params, body: { retry: false } }, quiet);
    case 'retry': return client.call('dismissError', { params, body: { retry: true } }, quiet);
  }
}

export interface StatusStreamListener {
  snapshot(statuses: FormulaStatus[]): void;
  status(status: FormulaStatus): void;
  /** a heartbeat comment: the stream is alive */
  heartbeat(): void;
  /** the stream could not be opened, or it ended; nothing more comes */
  ended(reason: string): void;
}

/**
 * Splits a server-sent event stream into events and comments, chunk by chunk (the WHATWG rules as
 * far as this stream uses them: `event:` and `data:` fields, comment lines, a blank line ending an
 * event).
 */
export function eventStreamParser(on: { event(name: string, data: string): void; comment(): void }): (chunk: string) => void {
  let buffer = '';
  let name = '';
  let data: string[] = [];
  return (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (data.length) on.event(name || 'message', data.join('\n'));
        name = '';
        data = [];
      } else if (line.startsWith(':')) {
        on.comment();
      } else {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = value;
        else if (field === 'data') data.push(value);
      }
    }
  };
}

const parsed = <S extends v.GenericSchema>(schema: S, data: string): v.InferOutput<S> | null => {
  try {
    const out = v.safeParse(schema, JSON.parse(data));
    return out.success ? out.output : null;
  } catch {
    return null;
  }
};

/** Opens the status stream; answers how to close it. After `ended` the listener hears nothing more. */
export function openStatusStream(listener: StatusStreamListener, fetchImpl: typeof fetch = (...args) => fetch(...args)): () => void {
  const abort = new AbortController();
  let open = true;
  const end = (reason: string) => {
    if (!open) return;
    open = false;
    abort.abort();
    listener.ended(reason);
  };
  const feed = eventStreamParser({
    event(name, data) {
      if (!open) return;
      if (name === 'snapshot') {
        const snapshot = parsed(StatusSnapshotSchema, data);
        if (snapshot) listener.snapshot(snapshot.statuses);
      } else if (name === 'status') {
        const status = parsed(FormulaStatusSchema, data);
        if (status) listener.status(status);
      }
    },
    comment() { if (open) listener.heartbeat(); },
  });

  void (async () => {
    const headers = { ...await identityHeaders(), Accept: 'text/event-stream' };
    const res = await fetchImpl(formulaStatusStream.path, { headers, signal: abort.signal, cache: 'no-store' });
    if (!res.ok || !res.body) throw new ApiError(res.status, { status: res.status });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      feed(decoder.decode(value, { stream: true }));
    }
    end('The status stream ended.');
  })().catch((err: unknown) => end(err instanceof ApiError ? `The status stream answered ${err.status}.` : 'The status stream could not be read.'));

  return () => {
    open = false;
    abort.abort();
  };
}
