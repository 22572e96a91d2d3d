/**
 * Fakes of remote calls for the model-based tests (DESIGN.md section 3: actors are swapped with
 * `machine.provide` for fakes from one shared helper).
 *
 * - `fakeCall()` waits: each call records its input and waits until the test answers it. Calls
 *   are answered oldest first, so two calls in flight are answered in the order they were made.
 * - `answeredCall(answer)` answers every call at once and records the inputs.
 *
 * Either stands in for a machine's promise actor (`.logic`, for `machine.provide({ actors })`) or
 * for a service's method (`.call`, which takes an AbortSignal). A call whose actor is stopped, or
 * whose signal fires, rejects with an AbortError and no longer waits: a path that leaves a state
 * while its call is in flight never answers a stale call.
 *
 * Model events name the answer: `xstate.done.actor.<id>` carries the output, `xstate.error.actor.<id>`
 * the error. `answer(event)` settles the oldest waiting call as the event says.
 */
import { act, waitFor } from '@testing-library/react';
import { fromPromise, type PromiseActorLogic } from 'xstate';

/** what a model event says of a call's answer */
export interface AnswerEvent { type: string; output?: unknown; error?: unknown }

interface Waiting<I, O> { input: I; resolve(output: O): void; reject(error: unknown): void }

export interface FakeCall<I, O> {
  /** every call's input, in order, answered or not */
  readonly calls: I[];
  /** whether a call waits for its answer */
  readonly waiting: boolean;
  /** the input of the oldest call that waits, or null */
  readonly next: I | null;
  /** the fake as a promise actor, for `machine.provide({ actors })` */
  readonly logic: PromiseActorLogic<O, I>;
  /** the fake as a function, for a service's method */
  call(input: I, signal?: AbortSignal): Promise<O>;
  /** answers the oldest waiting call; throws when none waits */
  resolve(output: O): void;
  reject(error: unknown): void;
  /** resolves with the event's output (`xstate.done.actor.*`) or rejects with its error (`xstate.error.actor.*`) */
  settle(event: AnswerEvent): void;
  /** waits (Testing Library's waitFor) until a call waits; answers its input */
  called(): Promise<I>;
  /** waits until a call waits, then settles it as the event says, inside act() */
  answer(event: AnswerEvent): Promise<void>;
}

const isError = (event: AnswerEvent) => event.type.startsWith('xstate.error.');

/** A fake call that waits until the test answers it. */
export function fakeCall<I = unknown, O = void>(name = 'fake call'): FakeCall<I, O> {
  const calls: I[] = [];
  const waiting: Waiting<I, O>[] = [];
  const oldest = () => {
    const w = waiting.shift();
    if (!w) throw new Error(`${name}: no call is waiting for an answer`);
    return w;
  };
  const call = (input: I, signal?: AbortSignal) => new Promise<O>((resolve, reject) => {
    calls.push(input);
    const w: Waiting<I, O> = { input, resolve, reject };
    waiting.push(w);
    signal?.addEventListener('abort', () => {
      const i = waiting.indexOf(w);
      if (i < 0) return;
      waiting.splice(i, 1);
      reject(new DOMException(`${name} was aborted`, 'AbortError'));
    });
  });
  const fake: FakeCall<I, O> = {
    calls,
    get waiting() { return waiting.length > 0; },
    get next() { return waiting[0]?.input ?? null; },
    logic: fromPromise<O, I>(({ input, signal }) => call(input, signal)),
    call,
    resolve(output) { oldest().resolve(output); },
    reject(error) { oldest().reject(error); },
    settle(event) {
      if (isError(event)) fake.reject(event.error);
      else fake.resolve(event.output as O);
    },
    async called() {
      await waitFor(() => { if (!waiting.length) throw new Error(`${name} was not called`); });
      return waiting[0]!.input;
    },
    async answer(event) {
      await fake.called();
      await act(async () => fake.settle(event));
    },
  };
  return fake;
}

export interface AnsweredCall<I, O> {
  /** every call's input, in order */
  readonly calls: I[];
  readonly logic: PromiseActorLogic<O, I>;
  call(input: I): Promise<O>;
}

/** A fake call answered at once by `answer` (which may throw, to refuse). */
export function answeredCall<I = unknown, O = void>(answer: (input: I) => O | Promise<O>): AnsweredCall<I, O> {
  const calls: I[] = [];
  const call = async (input: I) => {
    calls.push(input);
    return answer(input);
  };
  return { calls, call, logic: fromPromise<O, I>(({ input }) => call(input)) };
}
