/**
 * Model-based tests of the Feature Flags screen's machine (flagAdminMachine) on the real page:
 * loading the tenant's flags and formulas, switching custom-routing's default value, choosing the
 * formulas of its rule by name (saved as their ids; typed as ids when the formulas cannot be
 * loaded), and the failures of each. Events are user actions (user-event) or the answers of
 * fake administration calls; each state is what the page shows. After a change the browser's
 * flag client is told to refresh.
 */
import { createElement } from 'react';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { formulaRuleFlag, formulaRuleIds, withFormulaRuleIds } from '../../src/domain/flags/customRouting.ts';
import { toSnapshotFlag, type StoredFlag } from '../../src/domain/flags/definitions.ts';
import { CUSTOM_ROUTING_FLAG } from '../../src/domain/flags/snapshot.ts';
import { flagAdminMachine } from '../../src/machines/flagAdmin.ts';
import { flagsMachine } from '../../src/machines/flags.ts';
import type { SnapshotRequest, SnapshotResult } from '../../src/services/flags.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { FeatureFlagsPage } from '../../src/views/flags/FeatureFlagsPage.tsx';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const A = 'formula-a';
const B = 'formula-b';
const ROUTING: StoredFlag = {
  key: CUSTOM_ROUTING_FLAG, namespace: 'default', createdOn: '2026-11-22T09:00:00.000Z', updatedOn: '2026-11-22T09:00:00.000Z',
  ...formulaRuleFlag('Custom routing', 'Shows the Custom Routing Rules step.', []),
};
/** the tenant's formulas, as the formulas service lists them (names, not ids, are what the user picks) */
const FORMULAS = [{ id: A, name: 'Weekly gifts' }, { id: B, name: 'Monthly members' }];
const NAME_OF: Record<string, string> = Object.fromEntries(FORMULAS.map((f) => [f.id, f.name]));
const FORMULAS_FORBIDDEN = new ApiError(403, { title: 'forbidden', detail: 'You need formula view permission.' }, { silent: true });
const FORBIDDEN = new ApiError(403, { title: 'forbidden', detail: 'You need flags view permission.' }, { silent: true });
const BROKEN = new ApiError(500, { title: 'server-error', detail: 'A server error occured. Please try again later.' }, { silent: true });

type Event =
  | { type: 'flags.reload' } | { type: 'notice.dismiss' }
  | { type: 'flag.switch'; key: string; enabled: boolean }
  | { type: 'flag.formulas.save'; key: string; formulaIds: string[] }
  | { type: `xstate.done.actor.${'loadFlags' | 'switchFlag' | 'saveFlag' | 'loadFormulas'}`; output: unknown }
  | { type: `xstate.error.actor.${'loadFlags' | 'switchFlag' | 'saveFlag' | 'loadFormulas'}`; error: unknown };

type Snapshot = SnapshotFrom<typeof flagAdminMachine>;
const routingIn = (s: Snapshot) => s.context.flags.find((f) => f.key === CUSTOM_ROUTING_FLAG);

/**
 * The events each state offers, as the page can produce them: the switch turns the flag's current
 * value over, and saving adds formulas A and B when they are not chosen yet; the fake answers
 * accordingly.
 */
function eventsFor(s: Snapshot): Event[] {
  const current = routingIn(s);
  const events: Event[] = [
    { type: 'xstate.done.actor.loadFlags', output: [ROUTING] },
    { type: 'xstate.error.actor.loadFlags', error: FORBIDDEN },
    { type: 'flags.reload' },
    { type: 'notice.dismiss' },
    { type: 'xstate.error.actor.switchFlag', error: BROKEN },
    { type: 'xstate.error.actor.saveFlag', error: BROKEN },
  ];
  // the formulas load once, beside the list; they are chosen from once they have loaded (or typed once they could not be)
  const formulasSettled = s.context.formulas !== null || s.context.formulasError !== null;
  if (!formulasSettled) events.push({ type: 'xstate.done.actor.loadFormulas', output: FORMULAS }, { type: 'xstate.error.actor.loadFormulas', error: FORMULAS_FORBIDDEN });
  if (current) {
    events.push({ type: 'flag.switch', key: current.key, enabled: !current.enabled });
    events.push({ type: 'xstate.done.actor.switchFlag', output: { ...current, enabled: !current.enabled, updatedOn: `switched-${!current.enabled}` } });
    if (formulasSettled && JSON.stringify(formulaRuleIds(current)) !== JSON.stringify([A, B])) events.push({ type: 'flag.formulas.save', key: current.key, formulaIds: [A, B] });
    events.push({ type: 'xstate.done.actor.saveFlag', output: { ...withFormulaRuleIds(current, [A, B]), updatedOn: `saved-${current.enabled}` } });
  }
  return events;
}

const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.error, s.context.notice]);
/** the flags as the page shows them count too (a reload brings back the stored ones) */
const formulasOf = (s: Snapshot) => (s.context.formulas ? 'listed' : s.context.formulasError ? 'failed' : 'loading');
const serializeWithFlags = (s: Snapshot) => JSON.stringify([serializeState(s), s.context.flags.map((f) => [f.enabled, formulaRuleIds(f)]), formulasOf(s)]);

const model = testModel<typeof flagAdminMachine, Event>(flagAdminMachine, {
  events: eventsFor,
  serializeState: serializeWithFlags,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? v.status : v)),
});

async function start(machine: typeof flagAdminMachine) {
  const load = fakeCall<unknown, StoredFlag[]>('loadFlags');
  const switchCall = fakeCall<{ key: string; enabled: boolean }, StoredFlag>('switchFlag');
  const save = fakeCall<{ flag: StoredFlag; formulaIds: string[] }, StoredFlag>('saveFlag');
  const loadFormulas = fakeCall<unknown, typeof FORMULAS>('loadFormulas');
  const snapshot = answeredCall<SnapshotRequest, SnapshotResult>(() => (
    { status: 'fetched', snapshot: { namespace: { key: 'default' }, flags: [toSnapshotFlag(ROUTING.key, ROUTING)] }, etag: '"1"' }
  ));
  const flags = createActor(flagsMachine.provide({ actors: { fetchSnapshot: snapshot.logic } }), { input: {} }).start();
  const user = userEvent.setup({ delay: null });
  render(createElement(MantineProvider, null, createElement(FeatureFlagsPage, {
    flags,
    machine: machine.provide({ actors: { loadFlags: load.logic, switchFlag: switchCall.logic, saveFlag: save.logic, loadFormulas: loadFormulas.logic } }),
  })));
  return { load, switchCall, save, loadFormulas, flags, user, fetches: () => snapshot.calls.length };
}

const row = () => within(screen.getByTestId(`flag-${CUSTOM_ROUTING_FLAG}`));

function pathParams(t: Awaited<ReturnType<typeof start>>) {
  const answer = (which: 'load' | 'switchCall' | 'save' | 'loadFormulas') => async ({ event }: { event: { type: string } }) => t[which].answer(event);
  return {
    states: {
      loading: () => { expect(screen.getByText('Loading the flags…')).toBeTruthy(); },
      loadFailed: () => {
        const alert = screen.getByRole('alert');
        expect(alert.textContent).toContain('The flags could not be loaded');
        expect(alert.textContent).toContain('You need flags view permission.');
        expect(screen.queryByRole('table', { name: 'Feature flags' })).toBeNull();
      },
      listed: async (s: Snapshot) => {
        await screen.findByRole('table', { name: 'Feature flags' });
        const current = s.context.flags.find((f) => f.key === CUSTOM_ROUTING_FLAG)!;
        expect((row().getByRole('switch', { name: `${CUSTOM_ROUTING_FLAG} enabled` }) as HTMLInputElement).checked).toBe(current.enabled);
        expect(row().getByText(`${formulaRuleIds(current)!.length} formula${formulaRuleIds(current)!.length === 1 ? '' : 's'} chosen`)).toBeTruthy();
        expectFormulaChoice(s, formulaRuleIds(current)!);
        if (s.context.error) expect(screen.getByText('The flags could not be changed')).toBeTruthy();
        else expect(screen.queryByText('The flags could not be changed')).toBeNull();
        if (s.context.notice) {
          expect(screen.getByText(s.context.notice)).toBeTruthy();
          await waitFor(() => expect(t.fetches()).toBeGreaterThanOrEqual(2)); // the flag client refreshed
        } else {
          expect(screen.queryByText(/is now (enabled|disabled)|were saved/)).toBeNull();
        }
      },
      switching: (s: Snapshot) => {
        expect(t.switchCall.calls.at(-1)).toEqual({ key: CUSTOM_ROUTING_FLAG, enabled: !routingIn(s)!.enabled });
        expect((row().getByRole('switch', { name: `${CUSTOM_ROUTING_FLAG} enabled` }) as HTMLInputElement).disabled).toBe(true);
      },
      saving: () => {
        expect(t.save.calls.at(-1)!.formulaIds).toEqual([A, B]);
        expect(row().getByRole('button', { name: 'Save formulas' }).getAttribute('data-loading')).toBe('true');
      },
    },
    events: {
      'xstate.done.actor.loadFlags': answer('load'),
      'xstate.error.actor.loadFlags': answer('load'),
      'xstate.done.actor.switchFlag': answer('switchCall'),
      'xstate.error.actor.switchFlag': answer('switchCall'),
      'xstate.done.actor.saveFlag': answer('save'),
      'xstate.done.actor.loadFormulas': answer('loadFormulas'),
      'xstate.error.actor.loadFormulas': answer('loadFormulas'),
      'xstate.error.actor.saveFlag': answer('save'),
      'flags.reload': async () => { await t.user.click(screen.getByRole('button', { name: 'Reload' })); },
      'notice.dismiss': async () => { await t.user.click(screen.getByRole('button', { name: 'Dismiss' })); },
      'flag.switch': async () => { await t.user.click(row().getByRole('switch', { name: `${CUSTOM_ROUTING_FLAG} enabled` })); },
      // by name from the tenant's formulas; typed as ids only when the formulas could not be loaded
      'flag.formulas.save': async ({ state }: { state: Snapshot }) => {
        if (state.context.formulas) {
          await t.user.click(row().getByLabelText('On for these formulas'));
          for (const id of [A, B]) await t.user.click(await screen.findByRole('option', { name: NAME_OF[id], hidden: true }));
        } else {
          await t.user.type(row().getByLabelText('On for these formula ids'), `${A}{Enter}${B}{Enter}`);
        }
        await t.user.click(row().getByRole('button', { name: 'Save formulas' }));
      },
    },
  };
}

/** How the rule's formulas are chosen: by name once the tenant's formulas are loaded (the chosen ones shown by name), typed ids when they could not be. */
function expectFormulaChoice(s: Snapshot, chosen: string[]) {
  if (s.context.formulasError) {
    expect(row().getByLabelText('On for these formula ids')).toBeTruthy();
    expect(row().getByText(`${FORMULAS_FORBIDDEN.problem.detail} Enter formula ids instead.`)).toBeTruthy();
    return;
  }
  const select = row().getByLabelText('On for these formulas') as HTMLInputElement;
  expect(row().queryByLabelText('On for these formula ids')).toBeNull();
  expect(select.disabled).toBe(!s.context.formulas || s.context.busyKey !== null);
  if (!s.context.formulas) expect(select.getAttribute('placeholder') ?? '').toBe(chosen.length ? '' : 'Loading the formulas…');
  // the chosen formulas show by name, never by id
  for (const id of chosen) expect(row().getByText(s.context.formulas ? NAME_OF[id]! : id)).toBeTruthy();
  if (s.context.formulas) for (const id of chosen) expect(row().queryByText(id)).toBeNull();
}

/** the Feature Flags page over fake administration calls, beside a running flag client */
const view: ModelView<typeof flagAdminMachine, Awaited<ReturnType<typeof start>>> = {
  render: start,
  params: pathParams,
  stop: (t) => t.flags.stop(),
};

const shortest = model.getShortestPaths();
const nameOf = (p: (typeof shortest)[number]) => p.steps.slice(1).map(({ event }) => event.type.replace(/^xstate\.(done|error)\.actor\./, '$1 ')).join(' → ');

describe('feature flags screen: shortest paths', () => {
  it('reaches every state, each change confirmed and each failure shown', () => {
    const reached = reachedStates(shortest, serializeState);
    expect(reached.has(JSON.stringify(['loadFailed', FORBIDDEN.message, null]))).toBe(true);
    expect(reached.has(JSON.stringify(['listed', null, 'Custom routing is now enabled.']))).toBe(true);
    expect(reached.has(JSON.stringify(['listed', null, 'The formulas of Custom routing were saved.']))).toBe(true);
    expect(reached.has(JSON.stringify(['listed', BROKEN.problem.detail, null]))).toBe(true);
    // the rule's formulas are saved both ways: picked by name, and typed when the formulas could not be loaded
    const saving = reachedStates(shortest, (s) => JSON.stringify([s.value, formulasOf(s)]));
    expect(saving.has(JSON.stringify(['saving', 'listed']))).toBe(true);
    expect(saving.has(JSON.stringify(['saving', 'failed']))).toBe(true);
  });
  it.each(named(shortest, nameOf))('%s', async (_d, path) => runPath(path, flagAdminMachine, view));
});

describe('the suite can fail', () => {
  it('finds a machine whose known-flag guard is broken on purpose', async () => {
    const [toSwitching] = model.getPathsFromEvents([
      { type: 'xstate.done.actor.loadFlags', output: [ROUTING] },
      { type: 'flag.switch', key: CUSTOM_ROUTING_FLAG, enabled: true },
    ]);
    expect(toSwitching!.state.matches('switching')).toBe(true);
    await expectBrokenGuardToFail(flagAdminMachine, 'isKnownFlag', { paths: [toSwitching!], view, every: true });
  });
});
