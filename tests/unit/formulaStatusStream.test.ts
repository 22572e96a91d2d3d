/**
 * The browser's reading of the status stream (src/services/formulaStatus.ts): events split across
 * chunks anywhere, comments as heartbeats, data that is not a status ignored, and the end of the
 * stream (or a refusal) told once. Also the commands each formula offers (src/domain/formula/commands.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FormulaStatus } from '../../src/domain/api/formulas.ts';
import { formulaStatusStream } from '../../src/domain/api/formulaStatusStream.ts';
import { commandsFor, mayCommand, type CommandFacts } from '../../src/domain/formula/commands.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { eventStreamParser, openStatusStream } from '../../src/services/formulaStatus.ts';
import { setIdentitySource } from '../../src/services/gateway.ts';

const STATUS: FormulaStatus = {
  id: 'f1', status: 'paused', jobStatus: 'paused', enabled: true, paused: true, needsReprocess: false, nextRunAt: null, lastError: null, lastRun: null, buckets: {}, counts: {},
};

describe('eventStreamParser', () => {
  it('reads events and comments however the text is cut', () => {
    const text = `: hello\n\nevent: snapshot\ndata: {"statuses":[]}\n\nevent: status\r\ndata: {"a":\ndata: 1}\r\n\r\n: heartbeat\n\ndata: plain\n\n`;
    for (const size of [1, 2, 3, 7, text.length]) {
      const seen: string[] = [];
      const feed = eventStreamParser({ event: (name, data) => seen.push(`${name}=${data}`), comment: () => seen.push('comment') });
      for (let i = 0; i < text.length; i += size) feed(text.slice(i, i + size));
      expect(seen, `chunks of ${size}`).toEqual(['comment', 'snapshot={"statuses":[]}', 'status={"a":\n1}', 'comment', 'message=plain']);
    }
  });
});

describe('openStatusStream', () => {
  afterEach(() => setIdentitySource(null));

  function fakeFetch(chunks: string[], status = 200) {
    const asked: { url: string; headers: Record<string, string> }[] = [];
    const impl = (async (url: string, init: RequestInit) => {
      asked.push({ url, headers: init.headers as Record<string, string> });
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
          controller.close();
        },
      });
      return new Response(status === 200 ? body : 'refused', { status });
    }) as unknown as typeof fetch;
    return { impl, asked };
  }

  function listen() {
    const heard: string[] = [];
    let resolveEnd: (reason: string) => void = () => {};
    const ended = new Promise<string>((r) => { resolveEnd = r; });
    return {
      heard,
      ended,
      listener: {
        snapshot: (s: FormulaStatus[]) => heard.push(`snapshot ${s.length}`),
        status: (s: FormulaStatus) => heard.push(`status ${s.id} ${s.status}`),
        heartbeat: () => heard.push('heartbeat'),
        ended: (reason: string) => { heard.push('ended'); resolveEnd(reason); },
      },
    };
  }

  it('sends the identity headers, asks for an event stream, and tells each valid event, then the end', async () => {
    setIdentitySource(async () => ({ token: 't', orgId: 'o', clientId: 'c', userId: 'u', userEmail: 'e@example.org', tenantId: 'tn' }));
    const { impl, asked } = fakeFetch([
      `event: snapshot\ndata: ${JSON.stringify({ statuses: [STATUS] })}\n\n: heartbeat\n\n`,
      `event: status\ndata: {"id":"not a status"}\n\nevent: status\ndata: not json\n\n`,
      `event: status\ndata: ${JSON.stringify(STATUS)}\n\n`,
    ]);
    const l = listen();
    openStatusStream(l.listener, impl);
    expect(await l.ended).toBe('The status stream ended.');
    expect(l.heard).toEqual(['snapshot 1', 'heartbeat', 'status f1 paused', 'ended']);
    expect(asked[0]!.url).toBe(formulaStatusStream.path);
    expect(asked[0]!.headers).toMatchObject({ Authorization: 'Bearer t', tenantId: 'tn', Accept: 'text/event-stream' });
  });

  it('tells a refusal as the end, once', async () => {
    setIdentitySource(async () => ({ token: 't', orgId: 'o', clientId: 'c', userId: 'u', userEmail: 'e@example.org', tenantId: 'tn' }));
    const l = listen();
    openStatusStream(l.listener, fakeFetch([], 403).impl);
    expect(await l.ended).toBe('The status stream answered 403.');
    expect(l.heard).toEqual(['ended']);
  });

  it('tells nothing once closed', async () => {
    setIdentitySource(async () => ({ token: 't', orgId: 'o', clientId: 'c', userId: 'u', userEmail: 'e@example.org', tenantId: 'tn' }));
    const l = listen();
    const close = openStatusStream(l.listener, fakeFetch([`event: snapshot\ndata: {"statuses":[]}\n\n`]).impl);
    close();
    await new Promise((r) => setTimeout(r, 20));
    expect(l.heard).toEqual([]);
  });
});

describe('commandsFor', () => {
  const live: CommandFacts = { isDraft: false, usesFileUpload: false, status: 'active', enabled: true, paused: false, needsReprocess: false, lastError: null };
  const names = (facts: Partial<CommandFacts>, role = 'Formula Producer') => commandsFor({ ...live, ...facts }, policiesFor([role])).map((c) => `${c.name}${c.enabled ? '' : ' (disabled)'}`);

  it('offers what the status allows, usable when no run or clearing is under way', () => {
    expect(names({})).toEqual(['run', 'pause', 'deactivate', 'clear']);
    expect(names({ status: 'paused', paused: true })).toEqual(['run', 'resume', 'deactivate', 'clear']);
    expect(names({ status: 'inactive', enabled: false })).toEqual(['run', 'activate', 'clear']);
    expect(names({ status: 'processing', needsReprocess: true })).toEqual(['run (disabled)', 'pause', 'reprocess (disabled)', 'deactivate', 'clear (disabled)']);
    expect(names({ status: 'clearing' })).toEqual(['run (disabled)', 'pause (disabled)', 'deactivate (disabled)', 'clear (disabled)']);
    expect(names({ status: 'error', lastError: 'gave up' })).toEqual(['run (disabled)', 'pause', 'deactivate', 'clear', 'dismiss', 'retry']);
    // a file-upload formula runs when a file comes, so it is neither run now nor retried
    expect(names({ usesFileUpload: true, status: 'error', lastError: 'gave up' })).toEqual(['pause', 'deactivate', 'clear', 'dismiss']);
    expect(names({ isDraft: true })).toEqual([]);
    // an archived formula never runs: it is unarchived first
    expect(names({ archived: true, status: 'inactive', enabled: false })).toEqual([]);
    // a run waiting out its retry delay: it can be told to try now; the countdown stays on the card
    expect(names({ status: 'processing', jobStatus: 'retrying' })).toEqual(['run (disabled)', 'retryNow', 'pause', 'deactivate', 'clear (disabled)']);
    expect(names({ status: 'processing', jobStatus: 'retrying' }, 'View Only')).toEqual([]);
  });

  it('offers each role only what its policies let it call', () => {
    expect(names({}, 'View Only')).toEqual([]);
    expect(names({}, 'Data Processor')).toEqual([]);
    expect(names({}, 'Power User')).toEqual(['run', 'pause', 'deactivate', 'clear']);
    // activating needs formula edit, clearing formula delete: the endpoints' access in the contract
    expect(mayCommand({ formula: ['view', 'run'] }, 'activate')).toBe(false);
    expect(mayCommand({ formula: ['view', 'run'] }, 'clear')).toBe(false);
    expect(mayCommand({ formula: ['view', 'run'] }, 'pause')).toBe(true);
  });
});
