/**
 * The ClamAV client's protocol and its refusals, against a stand-in clamd on loopback TCP (the
 * real clamd is exercised by tests/api/flatFile.test.ts), and what the server says at start when
 * no scanner is configured.
 */
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { clamavAddressFromEnv, clamavScanner, interpret, ScannerUnavailableError } from '../../server/connectors/flatFile/clamav.ts';
import { loadConfig } from '../../server/config.ts';
import { configuredScanner } from '../../server/container.ts';
import type { Logger } from 'pino';

/** A stand-in clamd: decodes INSTREAM framing, then answers as `reply` says. */
function fakeClamd(reply: (payload: Buffer) => string | null, opts: { limit?: number } = {}) {
  const received: Buffer[] = [];
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    let command: string | null = null;
    const payload: Buffer[] = [];
    let size = 0;
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (command === null) {
        const nul = buf.indexOf(0);
        if (nul < 0) return;
        command = buf.subarray(0, nul).toString();
        buf = buf.subarray(nul + 1);
        if (command === 'zPING') { socket.end('PONG\0'); return; }
      }
      while (buf.length >= 4) {
        const len = buf.readUInt32BE(0);
        if (len === 0) {
          const all = Buffer.concat(payload);
          received.push(all);
          const answer = reply(all);
          if (answer === null) socket.destroy(); else socket.end(`${answer}\0`);
          return;
        }
        if (buf.length < 4 + len) return;
        payload.push(buf.subarray(4, 4 + len));
        size += len;
        buf = buf.subarray(4 + len);
        if (opts.limit !== undefined && size > opts.limit) {
          socket.end('INSTREAM size limit exceeded. ERROR\0');
          return;
        }
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise<{ port: number; received: Buffer[]; close(): Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ port, received, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/**
 * A stand-in clamd on its own thread, so that it answers while the test's thread is held: it
 * takes INSTREAM chunks up to `limit` bytes, then, 20 ms later, answers "size limit exceeded"
 * and closes, or, with `cut`, closes without a word.
 */
function clamdOnItsOwnThread(limit: number, cut: boolean) {
  const worker = new Worker(`
    const net = require('node:net');
    const { parentPort, workerData } = require('node:worker_threads');
    const server = net.createServer((socket) => {
      let size = 0;
      socket.on('data', (d) => {
        size += d.length;
        if (size > workerData.limit + 14 && !socket.destroyed) {
          socket.pause();
          // a moment late, so that the answer comes while the client's thread is held
          setTimeout(() => {
            if (workerData.cut) socket.destroy(); else { socket.write('INSTREAM size limit exceeded. ERROR\\0'); socket.destroy(); }
          }, 20);
        }
      });
      socket.on('error', () => undefined);
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
  `, { eval: true, workerData: { limit, cut } });
  return new Promise<{ port: number; close(): Promise<void> }>((resolve) => {
    worker.once('message', (port: number) => resolve({ port, close: async () => { await worker.terminate(); } }));
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closers.splice(0)) await c(); });

describe('ClamAV client over TCP', () => {
  it('streams the content in INSTREAM chunks and reads clean and infected answers', async () => {
    const clamd = await fakeClamd((p) => (p.includes('BAD') ? 'stream: Test.Sig FOUND' : 'stream: OK'));
    closers.push(clamd.close);
    const scanner = clamavScanner({ host: '127.0.0.1', port: clamd.port });
    const content = Buffer.alloc(200_000, 0x61);
    expect(await scanner.scan(content)).toEqual({ status: 'clean' });
    expect(clamd.received[0]!.equals(content)).toBe(true);
    expect(await scanner.scan((async function* () { yield Buffer.from('ok '); yield Buffer.from('BAD'); })())).toEqual({ status: 'infected', signature: 'Test.Sig' });
    expect(await scanner.ping()).toBe(true);
  });

  it('refuses a file over the scanner\'s stream limit as too large, never as clean', async () => {
    const clamd = await fakeClamd(() => 'stream: OK', { limit: 100_000 });
    closers.push(clamd.close);
    const scanner = clamavScanner({ host: '127.0.0.1', port: clamd.port });
    expect(await scanner.scan(Buffer.alloc(1_000_000))).toEqual({ status: 'too-large' });
  });

  /** Chunks written back to back with the thread held between them, as a busy machine does. */
  async function* heldBetweenChunks(limit: number) {
    yield Buffer.alloc(limit - 1000, 0x61);
    for (let i = 0; i < 5; i++) {
      const until = Date.now() + 60;
      while (Date.now() < until) { /* no turn of the event loop: clamd answers and closes meanwhile */ }
      yield Buffer.alloc(4096, 0x61);
    }
  }

  it('a stream that clamd cut before its answer was read is scanned again, and refused as too large', async () => {
    const clamd = await clamdOnItsOwnThread(300_000, false);
    closers.push(clamd.close);
    const scanner = clamavScanner({ host: '127.0.0.1', port: clamd.port });
    let opened = 0;
    const result = await scanner.scan(() => (++opened === 1 ? heldBetweenChunks(300_000) : Buffer.alloc(400_000)));
    expect(result).toEqual({ status: 'too-large' });
    expect(opened).toBe(2);
  });

  it('a stream cut without an answer twice, or one that cannot be read again, is unavailable, never clean', async () => {
    const cutter = await clamdOnItsOwnThread(300_000, true);
    closers.push(cutter.close);
    const scanner = clamavScanner({ host: '127.0.0.1', port: cutter.port });
    await expect(scanner.scan(() => heldBetweenChunks(300_000))).rejects.toThrow(/closed the connection before it answered/);
    const clamd = await clamdOnItsOwnThread(300_000, false);
    closers.push(clamd.close);
    await expect(clamavScanner({ host: '127.0.0.1', port: clamd.port }).scan(heldBetweenChunks(300_000))).rejects.toBeInstanceOf(ScannerUnavailableError);
  });

  it('treats no answer, a closed connection or an unknown answer as unavailable, never as clean', async () => {
    const silent = await fakeClamd(() => null);
    closers.push(silent.close);
    await expect(clamavScanner({ host: '127.0.0.1', port: silent.port }).scan(Buffer.from('x'))).rejects.toBeInstanceOf(ScannerUnavailableError);
    const odd = await fakeClamd(() => 'something else');
    closers.push(odd.close);
    await expect(clamavScanner({ host: '127.0.0.1', port: odd.port }).scan(Buffer.from('x'))).rejects.toBeInstanceOf(ScannerUnavailableError);
    // nothing listening
    const port = silent.port;
    await silent.close();
    closers.pop();
    await expect(clamavScanner({ host: '127.0.0.1', port }).scan(Buffer.from('x'))).rejects.toBeInstanceOf(ScannerUnavailableError);
    expect(await clamavScanner({ host: '127.0.0.1', port }).ping()).toBe(false);
  });

  it('reads clamd\'s answers, with a scan-limit alert refused as too large', () => {
    expect(interpret('stream: OK')).toEqual({ status: 'clean' });
    expect(interpret('stream: Win.Test.EICAR_HDB-1 FOUND')).toEqual({ status: 'infected', signature: 'Win.Test.EICAR_HDB-1' });
    expect(interpret('stream: Heuristics.Limits.Exceeded.MaxFileSize FOUND')).toEqual({ status: 'too-large' });
    expect(interpret('INSTREAM size limit exceeded. ERROR')).toEqual({ status: 'too-large' });
    expect(() => interpret('stream: lstat() failed ERROR')).toThrow(ScannerUnavailableError);
  });
});

describe('configuration', () => {
  it('takes CLAMAV_SOCKET, or CLAMAV_HOST with CLAMAV_PORT (3310 by default), or nothing', () => {
    expect(clamavAddressFromEnv({ CLAMAV_SOCKET: '/run/clamav/clamd.ctl' })).toEqual({ socket: '/run/clamav/clamd.ctl' });
    expect(clamavAddressFromEnv({ CLAMAV_HOST: 'clamav' })).toEqual({ host: 'clamav', port: 3310 });
    expect(clamavAddressFromEnv({ CLAMAV_HOST: 'clamav', CLAMAV_PORT: '3311' })).toEqual({ host: 'clamav', port: 3311 });
    expect(clamavAddressFromEnv({})).toBeNull();
    expect(() => clamavAddressFromEnv({ CLAMAV_HOST: 'clamav', CLAMAV_PORT: 'x' })).toThrow(/CLAMAV_PORT/);
  });

  it('says at start when no scanner is configured, and that uploads are reported as not scanned', () => {
    const lines: { level: string; msg: string }[] = [];
    const log = {
      info: (_o: unknown, msg?: string) => lines.push({ level: 'info', msg: String(msg ?? _o) }),
      warn: (o: unknown, msg?: string) => lines.push({ level: 'warn', msg: String(msg ?? o) }),
    } as unknown as Logger;
    expect(configuredScanner(loadConfig({}), log)).toBeNull();
    expect(lines).toEqual([{ level: 'warn', msg: expect.stringMatching(/No virus scanner is configured .*not scanned/) }]);
  });
});
