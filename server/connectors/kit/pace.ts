/**
 * A vendor's documented calls-per-second limit kept on our side: through one pacer, at most
 * `perSecond` calls start in any second (a sliding window), so a batch's burst of searches and
 * writes meets the vendor's 429s rarely instead of on every page. One pacer per vendor account in
 * this process (sharedPacer, keyed by the vendor and the account's key); workers in other
 * processes share the account's limit through the 429s and Retry-After the client honours.
 */
export interface Pacer {
  /** resolves when a call may start; rejects when the signal aborts first */
  take(signal?: AbortSignal): Promise<void>;
}

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => new Promise<void>((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const timer = setTimeout(() => { signal?.removeEventListener('abort', abort); resolve(); }, ms);
    const abort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener('abort', abort, { once: true });
  }),
};

export function pacer(perSecond: number, clock: Clock = realClock): Pacer {
  return windowPacer(perSecond, 1000, clock);
}

/**
 * At most `count` calls start in any `windowMs` (a sliding window): a vendor whose limit is per
 * ten seconds (HubSpot's burst limit) is paced over its own window, not a second's share of it.
 */
export function windowPacer(count: number, windowMs: number, clock: Clock = realClock): Pacer {
  if (!(count >= 1) || !(windowMs > 0)) throw new Error('A pacer needs at least one call in its window.');
  // start times of the last `count` calls; calls queue behind each other so none jumps ahead
  const starts: number[] = [];
  let queue: Promise<void> = Promise.resolve();
  return {
    take(signal) {
      const mine = queue.then(async () => {
        signal?.throwIfAborted();
        if (starts.length >= count) {
          const wait = starts[0]! + windowMs - clock.now();
          if (wait > 0) await clock.sleep(wait, signal);
          starts.shift();
        }
        starts.push(clock.now());
      });
      // a call that gave up (aborted) does not hold up the ones behind it
      queue = mine.catch(() => {});
      return mine;
    },
  };
}

const shared = new Map<string, Pacer>();

/** The process's pacer for one vendor account (made on first use); `windowMs` for a limit over more than a second. */
export function sharedPacer(key: string, perSecond: number, windowMs = 1000): Pacer {
  let p = shared.get(key);
  if (!p) { p = windowPacer(perSecond, windowMs); shared.set(key, p); }
  return p;
}
