/**
 * Virus scanning with ClamAV's clamd, over its unix socket or TCP, with the INSTREAM command:
 * `zINSTREAM\0`, then chunks of <4-byte big-endian length><bytes>, then a zero length; clamd
 * answers `stream: OK`, `stream: <signature> FOUND` or `... ERROR`.
 *
 * A file is never passed unscanned: a file larger than clamd's StreamMaxLength (clamd answers
 * "INSTREAM size limit exceeded") or its scan limits (with AlertExceedsMax, a
 * Heuristics.Limits.Exceeded alert) is refused as too large to scan, and a scanner that does
 * not answer is an error, not a pass.
 */
import net from 'node:net';
import type { Readable } from 'node:stream';

export type ClamavAddress = { socket: string } | { host: string; port: number };

export type ScanResult =
  | { status: 'clean' }
  | { status: 'infected'; signature: string }
  | { status: 'too-large' };

/** clamd could not be reached, timed out or answered something we do not understand. */
export class ScannerUnavailableError extends Error {
  override readonly name = 'ScannerUnavailableError';
}

/**
 * What a scan reads: bytes, a stream, or a function that opens the content anew, which lets a
 * scan whose connection clamd cut before answering be tried once more.
 */
export type ScanContent = Readable | AsyncIterable<Uint8Array> | Uint8Array | (() => Readable | AsyncIterable<Uint8Array> | Uint8Array);

export interface VirusScanner {
  /** where the scanner is, for logs */
  readonly description: string;
  scan(content: ScanContent): Promise<ScanResult>;
  ping(): Promise<boolean>;
}
/** From CLAMAV_SOCKET, or CLAMAV_HOST and CLAMAV_PORT (default 3310); null when neither is set. */
export function clamavAddressFromEnv(env: NodeJS.ProcessEnv): ClamavAddress | null {
  if (env.CLAMAV_SOCKET) return { socket: env.CLAMAV_SOCKET };
  if (env.CLAMAV_HOST) {
    const port = Number(env.CLAMAV_PORT ?? 3310);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`CLAMAV_PORT must be a port number, got "${env.CLAMAV_PORT}"`);
    return { host: env.CLAMAV_HOST, port };
  }
  return null;
}

/** Bytes per INSTREAM chunk (clamd reads chunks of any size up to StreamMaxLength). */
const CHUNK = 64 * 1024;

export function clamavScanner(address: ClamavAddress, opts: { timeoutMs?: number } = {}): VirusScanner {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const description = 'socket' in address ? `clamd at unix:${address.socket}` : `clamd at ${address.host}:${address.port}`;

  const connect = () => new Promise<net.Socket>((resolve, reject) => {
    const s = 'socket' in address ? net.connect(address.socket) : net.connect(address.port, address.host);
    s.setTimeout(timeoutMs);
    const fail = (err: Error) => { s.destroy(); reject(new ScannerUnavailableError(`${description} cannot be reached: ${err.message}`)); };
    s.once('error', fail);
    s.once('timeout', () => fail(new Error('timed out')));
    s.once('connect', () => { s.off('error', fail); resolve(s); });
  });

  /** Collects clamd's NUL-terminated answer; resolves when clamd closes or the answer is complete. */
  const answer = (s: net.Socket) => new Promise<string>((resolve, reject) => {
    let text = '';
    s.on('data', (d: Buffer) => {
      text += d.toString('utf8');
      if (text.includes('\0')) { resolve(text.slice(0, text.indexOf('\0'))); s.end(); }
    });
    s.on('end', () => resolve(text.replace(/\0.*$/s, '')));
    s.on('close', () => resolve(text.replace(/\0.*$/s, '')));
    s.on('timeout', () => { s.destroy(); reject(new ScannerUnavailableError(`${description} did not answer in time`)); });
    s.on('error', (err) => { if (text) resolve(text); else reject(new ScannerUnavailableError(`${description}: ${err.message}`)); });
  });

  /**
   * One INSTREAM pass. clamd answers a stream past its StreamMaxLength and closes at once, while
   * we may still be writing. Each chunk therefore waits for its write and for one turn of the
   * event loop (which reads whatever clamd sent) before the next, and streaming stops as soon as
   * clamd has said anything. A write can still meet the closed socket, when clamd closes between
   * that read and our write; Node then drops the socket with clamd's answer unread, and the pass
   * ends as `cut`.
   */
  async function pass(content: Readable | AsyncIterable<Uint8Array> | Uint8Array): Promise<ScanResult | 'cut'> {
    const s = await connect();
    const reply = answer(s);
    reply.catch(() => undefined); // awaited below; settled early when the socket fails mid-stream
    let heard = false;
    let failed = false;
    s.once('data', () => { heard = true; });
    s.once('error', () => { failed = true; });
    const stopped = () => heard || failed || s.destroyed || !s.writable;
    const write = (b: Uint8Array) => new Promise<void>((resolve) => {
      if (stopped()) { resolve(); return; }
      s.write(b, (err) => {
        if (err) failed = true;
        setImmediate(resolve);
      });
    });
    try {
      await write(Buffer.from('zINSTREAM\0'));
      const send = async (bytes: Uint8Array) => {
        for (let off = 0; off < bytes.length && !stopped(); off += CHUNK) {
          const part = bytes.subarray(off, off + CHUNK);
          const len = Buffer.alloc(4);
          len.writeUInt32BE(part.length);
          s.write(len);
          await write(part);
        }
      };
      if (content instanceof Uint8Array) await send(content);
      else for await (const chunk of content as AsyncIterable<Uint8Array>) { if (stopped()) break; await send(chunk); }
      await write(Buffer.alloc(4));
    } catch (err) {
      s.destroy();
      throw new ScannerUnavailableError(`${description}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let text: string;
    try {
      text = await reply;
    } catch (err) {
      if (failed && !heard) return 'cut';
      throw err;
    }
    if (!text.trim() && failed) return 'cut';
    return interpret(text, description);
  }

  return {
    description,

    async ping() {
      try {
        const s = await connect();
        const reply = answer(s);
        s.write('zPING\0');
        return (await reply).trim() === 'PONG';
      } catch {
        return false;
      }
    },

    async scan(content) {
      const replayable = typeof content === 'function' || content instanceof Uint8Array;
      const open = () => (typeof content === 'function' ? content() : content);
      const first = await pass(open());
      if (first !== 'cut') return first;
      // clamd closed mid-stream and its answer was lost: a second pass learns why (or fails)
      const second = replayable ? await pass(open()) : 'cut';
      if (second !== 'cut') return second;
      throw new ScannerUnavailableError(`${description} closed the connection before it answered`);
    },
  };
}

export function interpret(reply: string, description = 'clamd'): ScanResult {
  const text = reply.trim();
  if (/size limit exceeded/i.test(text)) return { status: 'too-large' };
  const found = /^(?:stream: )?(.+) FOUND$/.exec(text);
  if (found) {
    const signature = found[1]!;
    // AlertExceedsMax: a file beyond the scan limits is reported, and refused as too large to scan
    if (/^Heuristics\.Limits\.Exceeded/.test(signature)) return { status: 'too-large' };
    return { status: 'infected', signature };
  }
  if (/^(?:stream: )?OK$/.test(text)) return { status: 'clean' };
  throw new ScannerUnavailableError(`${description} answered: ${text.slice(0, 200) || '(nothing)'}`);
}
