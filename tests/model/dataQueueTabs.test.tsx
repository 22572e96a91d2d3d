/**
 * Model-based tests of the Data Queue's tabs (src/machines/dataQueueTabs.ts) on the rendered Data
 * Queue, with controlled time. Paths come from the machine's graph; each event is a user's action
 * (a tab chosen, a tab added, named, renamed or deleted, a card placed, removed, or moved by
 * keyboard: its handle focused, Space, an arrow, Space), the fake server's answer, or time passing
 * on fake timers (the notification's 5 seconds). Each state is what the user sees: the tabs in
 * order, the cards of the tab shown in order with their record counts, the dialogs, the failed
 * reorder's message with the previous order back. The API is faked at the machine's actors, in
 * this file only; user actions go through fireEvent, since the fake clock holds user-event's own
 * timers still.
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { DataQueue, Tab } from '../../src/domain/api/dataQueue.ts';
import type { FormulaStatus } from '../../src/domain/api/formulas.ts';
import { DATA_QUEUE_MESSAGES, MAX_TABS } from '../../src/domain/dataQueue.ts';
import { NOTIFICATION_TIMEOUT_MS } from '../../src/domain/errors.ts';
import { runTimeWords } from '../../src/domain/formula/scheduleTimes.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { ALL_FORMULAS, dataQueueTabsMachine, type CardChange } from '../../src/machines/dataQueueTabs.ts';
import { formulaListMachine } from '../../src/machines/formulaList.ts';
import { jobStatusMachine } from '../../src/machines/jobStatus.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import type { DataSourceListItem } from '../../src/services/integrations.ts';
import { DataQueuePage } from '../../src/views/dataQueue/DataQueuePage.tsx';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, expectingFailure, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

beforeEach(() => { vi.useFakeTimers({ now: Date.parse('2026-11-20T10:00:00.000Z') }); });
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------------
// The fake server's formulas and tabs

const formula = (id: string, name: string): FormulaView => ({
  id, name, isDraft: false, usesFileUpload: false, sourceDataSource: null, firstDestinationDataSource: null, sampleUploadId: null,
  status: 'active', jobStatus: 'scheduled', needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-02T00:00:00Z',
});
const A = formula('aaaaaaaa-0000-4000-8000-000000000001', 'Spring appeal');
const B = formula('bbbbbbbb-0000-4000-8000-000000000002', 'Gala tickets');
const C = formula('cccccccc-0000-4000-8000-000000000003', 'Volunteers');
const FORMULAS = [A, B, C];
const NAMES = new Map(FORMULAS.map((f) => [f.id, f.name!]));
const SOURCE: DataSourceListItem = {
  id: 'ds-crm', system: 'sandbox-crm', displayName: 'Sandbox CRM', createdOn: '', createdBy: null, modifiedOn: '', modifiedBy: null, usedByCount: 1,
};
const T1: Tab = { id: 't1', name: 'Appeals', formulaIds: [A.id, B.id] };
const COUNTS: DataQueue['counts'] = {
  [A.id]: { 'ready-records': 2, 'needs-attention': 1, 'new-records': 3, exception: 0, 'formula-exceptions': 0, 'related-records': 0, 'validation-exceptions/Missing email': 4 },
};
const LISTINGS = {
  'one tab': { tabs: [T1], counts: COUNTS },
  'five tabs': { tabs: [T1, ...[2, 3, 4, 5].map((n) => ({ id: `t${n}`, name: `Tab ${n}`, formulaIds: [] }))], counts: COUNTS },
} satisfies Record<string, DataQueue>;
const NEW_NAME = 'Major gifts';
const BAD_NAME = 'Gifts!';
const problem = (status: number, title: string, detail?: string) => ({ status, problem: { title, status, ...(detail ? { detail } : {}) } });
const LIMIT = problem(409, 'tab-limit');
const REFUSED = problem(500, 'server-error');

// ---------------------------------------------------------------------------------------------
// The model

type Snap = SnapshotFrom<typeof dataQueueTabsMachine>;
type ModelEvent = { type: string; [k: string]: unknown };

const t1 = (s: Snap) => s.context.tabs.find((t) => t.id === T1.id);
const pristine = (s: Snap) => JSON.stringify(t1(s)) === JSON.stringify(T1);

const model = testModel<typeof dataQueueTabsMachine, ModelEvent>(dataQueueTabsMachine, {
  events: (s): ModelEvent[] => {
    const snap = s as Snap;
    if (snap.matches('loading')) {
      return [
        ...Object.values(LISTINGS).map((output) => ({ type: 'xstate.done.actor.loadTabs', output })),
        { type: 'xstate.error.actor.loadTabs', error: REFUSED },
      ];
    }
    if (snap.matches('failed')) return [{ type: 'tabs.reload' }];
    if (snap.matches({ ready: { browsing: 'saved' } })) return [{ type: 'xstate.after.noticeTimeout.dataQueueTabs.ready.browsing.saved' }];
    if (snap.matches({ ready: { browsing: 'orderFailed' } })) {
      return [{ type: 'xstate.after.noticeTimeout.dataQueueTabs.ready.browsing.orderFailed' }, { type: 'notice.close' }];
    }
    const events: ModelEvent[] = [];
    const { selected, tabs, name, nameError, error } = snap.context;
    if (snap.matches({ ready: { browsing: 'idle' } })) {
      if (error) return [{ type: 'error.close' }];
      events.push({ type: 'tab.select', tabId: selected === ALL_FORMULAS ? T1.id : ALL_FORMULAS });
      // the tab edits and card moves start from the tabs as the server gave them: the graph stays small
      if (tabs.length === 1 && pristine(snap)) {
        if (selected === ALL_FORMULAS) events.push({ type: 'tab.add' }, { type: 'card.place', tabId: T1.id, formulaId: C.id });
        else {
          events.push(
            { type: 'cards.reorder', tabId: T1.id, formulaIds: [B.id, A.id] }, { type: 'card.remove', tabId: T1.id, formulaId: A.id },
            { type: 'tab.rename', tabId: T1.id }, { type: 'tab.delete', tabId: T1.id },
          );
        }
      }
      return events;
    }
    if (snap.matches({ ready: 'naming' })) {
      if (name !== NEW_NAME) events.push({ type: 'name.change', name: NEW_NAME });
      if (name === '' || (name === T1.name)) events.push({ type: 'name.change', name: BAD_NAME });
      if ((name === BAD_NAME && !nameError) || name === NEW_NAME) events.push({ type: 'name.submit' });
      if (name === NEW_NAME || name === T1.name) events.push({ type: 'name.cancel' });
      return events;
    }
    if (snap.matches({ ready: { savingName: 'creating' } })) {
      return [{ type: 'xstate.done.actor.createTab', output: { id: 't-new', name: NEW_NAME, formulaIds: [] } }, { type: 'xstate.error.actor.createTab', error: LIMIT }];
    }
    if (snap.matches({ ready: { savingName: 'renaming' } })) {
      return [
        { type: 'xstate.done.actor.renameTab', output: { ...T1, name: NEW_NAME } },
        { type: 'xstate.error.actor.renameTab', error: problem(400, 'bad-request', DATA_QUEUE_MESSAGES.tabName) },
      ];
    }
    if (snap.matches({ ready: 'confirmingDelete' })) return [{ type: 'delete.confirm' }, { type: 'delete.cancel' }];
    if (snap.matches({ ready: 'deleting' })) return [{ type: 'xstate.done.actor.deleteTab', output: undefined }, { type: 'xstate.error.actor.deleteTab', error: REFUSED }];
    if (snap.matches({ ready: 'savingOrder' })) {
      return [{ type: 'xstate.done.actor.saveOrder', output: t1(snap) }, { type: 'xstate.error.actor.saveOrder', error: REFUSED }];
    }
    if (snap.matches({ ready: 'changingCards' })) {
      const change = pristine(snap) && snap.context.selected === ALL_FORMULAS
        ? { ...T1, formulaIds: [A.id, B.id, C.id] } : { ...T1, formulaIds: [B.id] };
      return [{ type: 'xstate.done.actor.changeCards', output: change }, { type: 'xstate.error.actor.changeCards', error: REFUSED }];
    }
    return [];
  },
  serializeState: (s) => {
    const { value, context: c } = s as Snap;
    const naming = (s as Snap).matches({ ready: 'naming' }) || (s as Snap).matches({ ready: 'savingName' });
    // what a closed dialog left behind is not shown: it tells no states apart
    return JSON.stringify([value, c.tabs, c.selected, c.error, naming ? [c.name, c.nameError, c.editing] : null]);
  },
});

// ---------------------------------------------------------------------------------------------
// The screen

/** lets resolved promises, and the re-render they cause, run */
const settle = () => act(async () => { await vi.advanceTimersByTimeAsync(0); });
/** lets time pass on the fake clock (a dialog's or a menu's transition, the notification's 5 seconds) */
const pass = (ms: number) => act(async () => { await vi.advanceTimersByTimeAsync(ms); });

interface Rendered {
  load: FakeCall<void, DataQueue>;
  create: FakeCall<{ name: string }, Tab>;
  rename: FakeCall<{ tabId: string; name: string }, Tab>;
  remove: FakeCall<{ tabId: string }, void>;
  order: FakeCall<{ tabId: string; formulaIds: string[] }, Tab>;
  cards: FakeCall<CardChange, Tab>;
  auth: { stop(): void };
}

/** `onStream` is handed the fake status stream's voice; without it the stream stays silent */
async function renderQueue(machine: typeof dataQueueTabsMachine, onStream?: (speak: (event: { type: string; [k: string]: unknown }) => void) => void): Promise<Rendered> {
  const r = {
    load: fakeCall<void, DataQueue>('GET /tabs'),
    create: fakeCall<{ name: string }, Tab>('POST /tabs'),
    rename: fakeCall<{ tabId: string; name: string }, Tab>('PATCH /tabs/:id'),
    remove: fakeCall<{ tabId: string }, void>('DELETE /tabs/:id'),
    order: fakeCall<{ tabId: string; formulaIds: string[] }, Tab>('PUT /tabs/:id/order'),
    cards: fakeCall<CardChange, Tab>('a card placed or removed'),
    auth: createActor(setup({}).createMachine({ context: { user: { policies: policiesFor(['Formula Producer']) } } })).start(),
  };
  const tabs = machine.provide({
    actors: { loadTabs: r.load.logic, createTab: r.create.logic, renameTab: r.rename.logic, deleteTab: r.remove.logic, saveOrder: r.order.logic, changeCards: r.cards.logic } as never,
  });
  const list = formulaListMachine.provide({ actors: { loadList: fromPromise(async () => ({ formulas: FORMULAS, sources: [SOURCE] as DataSourceListItem[] | null })) } });
  // no live status unless a test speaks for the stream: the cards show what the list and the tabs gave
  const jobs = jobStatusMachine.provide({ actors: { statusStream: fromCallback(({ sendBack }) => { onStream?.(sendBack); return () => {}; }) } as never });
  const router = createMemoryRouter([{ path: '*', element: <DataQueuePage machines={{ tabs, list, jobs }} /> }], { initialEntries: ['/data-queue'] });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth: r.auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  await settle();
  return r;
}

const cardNames = (list: HTMLElement) => within(list).getAllByRole('heading', { level: 3 }).map((h) => h.textContent);

/** everything the screen shows in this state */
function expectScreen(snap: Snap) {
  expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Data Queue']);
  if (snap.matches('loading')) {
    expect(screen.getByLabelText('Loading the Data Queue')).toBeTruthy();
    return;
  }
  if (snap.matches('failed')) {
    expect(screen.getByRole('alert').textContent).toContain('The Data Queue could not be loaded');
    return;
  }
  const { tabs, selected, counts, error } = snap.context;
  // the tabs, in order, the one shown selected
  const tabList = screen.getByRole('tablist', { name: 'Data Queue tabs' });
  const shown = within(tabList).getAllByRole('tab');
  expect(shown.map((t) => t.textContent)).toEqual(['All Formulas', ...tabs.map((t) => t.name)]);
  expect(shown.find((t) => t.getAttribute('aria-selected') === 'true')!.textContent).toBe(selected === ALL_FORMULAS ? 'All Formulas' : tabs.find((t) => t.id === selected)!.name);
  expect(screen.getByText(`${tabs.length} of ${MAX_TABS} tabs`)).toBeTruthy();
  const add = screen.getByRole('button', { name: 'Add a tab' }) as HTMLButtonElement;
  expect(add.disabled, 'Add a tab disabled').toBe(tabs.length >= MAX_TABS || !snap.matches({ ready: 'browsing' }));
  if (tabs.length >= MAX_TABS) expect(screen.getByText(DATA_QUEUE_MESSAGES.tabLimit)).toBeTruthy();

  // the cards of the tab shown, in its order, with the records per bucket linked to their screens
  const tab = tabs.find((t) => t.id === selected);
  if (!tab) {
    expect(cardNames(screen.getByRole('list', { name: 'All formulas' }))).toEqual(FORMULAS.map((f) => f.name));
  } else if (tab.formulaIds.length) {
    expect(cardNames(screen.getByRole('list', { name: `Cards on ${tab.name}` }))).toEqual(tab.formulaIds.map((id) => NAMES.get(id)));
  } else {
    expect(screen.getByText(/^No cards on this tab yet/)).toBeTruthy();
  }
  const showsA = !tab || tab.formulaIds.includes(A.id);
  if (showsA) {
    expect(screen.getByRole('link', { name: 'Ready: 2 records of Spring appeal' }).getAttribute('href')).toBe(`/${A.id}/ready-records`);
    expect(screen.getByRole('link', { name: 'Needs Attention: 1 record of Spring appeal' }).getAttribute('href')).toBe(`/${A.id}/needs-attention`);
    expect(screen.getByRole('link', { name: 'Missing email: 4 records of Spring appeal' }).getAttribute('href')).toBe(`/${A.id}/validation-exceptions/Missing%20email`);
    expect(screen.queryByRole('link', { name: /^Exceptions: .* of Spring appeal/ })).toBeNull();
    expect(counts[A.id]).toBeTruthy();
  }

  // a reorder: saving, saved, or failed with SPEC.md's message and the previous order back
  expect(!!screen.queryByText('Saving the order…')).toBe(snap.matches({ ready: 'savingOrder' }));
  expect(!!screen.queryByText('The order of the cards is saved.')).toBe(snap.matches({ ready: { browsing: 'saved' } }));
  const alerts = screen.queryAllByRole('alert').map((a) => a.textContent);
  expect(alerts.includes(DATA_QUEUE_MESSAGES.orderFailed), 'the failed order\'s notification').toBe(snap.matches({ ready: { browsing: 'orderFailed' } }));
  if (error) expect(alerts.some((a) => a?.includes(error)), `${JSON.stringify(alerts)} holds ${error}`).toBe(true);

  // the dialogs
  const naming = snap.matches({ ready: 'naming' }) || snap.matches({ ready: 'savingName' });
  const deleting = snap.matches({ ready: 'confirmingDelete' }) || snap.matches({ ready: 'deleting' });
  if (naming) {
    const dialog = screen.getByRole('dialog', { name: snap.context.editing ? 'Rename tab' : 'Add a tab' });
    expect((within(dialog).getByRole('textbox', { name: /Tab name/ }) as HTMLInputElement).value).toBe(snap.context.name);
    if (snap.context.nameError) expect(dialog.textContent).toContain(snap.context.nameError);
    const submit = within(dialog).getByRole('button', { name: snap.context.editing ? 'Rename' : 'Add tab' });
    expect(submit.getAttribute('data-loading') === 'true').toBe(snap.matches({ ready: 'savingName' }));
  } else if (deleting) {
    const dialog = screen.getByRole('dialog', { name: 'Delete tab' });
    expect(dialog.textContent).toContain(`Delete the tab ${T1.name}?`);
    expect(within(dialog).getByRole('button', { name: 'Delete' }).getAttribute('data-loading') === 'true').toBe(snap.matches({ ready: 'deleting' }));
  } else {
    expect(screen.queryByRole('dialog')).toBeNull();
  }
}

const dialog = () => screen.getByRole('dialog');
const answer = async (fake: FakeCall<never, unknown>, event: { type: string }) => {
  expect(fake.waiting, `a call waits for ${event.type}`).toBe(true);
  await act(async () => fake.settle(event));
  await settle();
  await pass(400);
};
const click = async (el: HTMLElement) => {
  fireEvent.click(el);
  await settle();
  await pass(400);
};

const view: ModelView<typeof dataQueueTabsMachine, Rendered> = {
  render: (machine) => renderQueue(machine),
  stop: (r) => r.auth.stop(),
  params: (r) => {
    const fakes: Record<string, FakeCall<never, unknown>> = {
      loadTabs: r.load, createTab: r.create, renameTab: r.rename, deleteTab: r.remove, saveOrder: r.order, changeCards: r.cards,
    } as never;
    const events: Record<string, (step: { event: ModelEvent; state: Snap }) => Promise<void>> = {
      'tabs.reload': () => click(screen.getByRole('button', { name: 'Try again' })),
      'tab.select': async ({ event, state }) => {
        const name = event.tabId === ALL_FORMULAS ? 'All Formulas' : state.context.tabs.find((t) => t.id === event.tabId)!.name;
        await click(screen.getByRole('tab', { name }));
      },
      'tab.add': () => click(screen.getByRole('button', { name: 'Add a tab' })),
      'tab.rename': () => click(screen.getByRole('button', { name: 'Rename tab' })),
      'tab.delete': () => click(screen.getByRole('button', { name: 'Delete tab' })),
      'name.change': async ({ event }) => {
        fireEvent.change(within(dialog()).getByRole('textbox', { name: /Tab name/ }), { target: { value: event.name } });
        await settle();
      },
      'name.submit': ({ state }) => click(within(dialog()).getByRole('button', { name: state.context.editing ? 'Rename' : 'Add tab' })),
      'name.cancel': () => click(within(dialog()).getByRole('button', { name: 'Cancel' })),
      'delete.confirm': () => click(within(dialog()).getByRole('button', { name: 'Delete' })),
      'delete.cancel': () => click(within(dialog()).getByRole('button', { name: 'Cancel' })),
      // by keyboard: the handle of the first card, Space to lift, an arrow down, Space to drop
      'cards.reorder': async () => {
        const handle = screen.getByRole('button', { name: `Move ${A.name}` });
        handle.focus();
        fireEvent.keyDown(handle, { key: ' ' });
        await settle();
        expect(screen.getByText(/^Lifted Spring appeal, position 1 of 2\./)).toBeTruthy();
        fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
        await settle();
        expect(screen.getByText('Moved Spring appeal, position 2 of 2.')).toBeTruthy();
        expect(document.activeElement?.getAttribute('aria-label')).toBe(`Move ${A.name}`);
        fireEvent.keyDown(document.activeElement!, { key: ' ' });
        await settle();
        expect(r.order.next).toEqual({ tabId: T1.id, formulaIds: [B.id, A.id] });
      },
      'card.place': async ({ event, state }) => {
        await click(screen.getByRole('button', { name: `Add ${NAMES.get(event.formulaId as string)} to a tab` }));
        // the menu's transition keeps it hidden to the accessibility tree in jsdom
        await click(screen.getByRole('menuitem', { name: state.context.tabs.find((t) => t.id === event.tabId)!.name, hidden: true }));
      },
      'card.remove': ({ event }) => click(screen.getByRole('button', { name: `Remove ${NAMES.get(event.formulaId as string)} from ${T1.name}` })),
      'notice.close': () => click(screen.getByRole('button', { name: 'Close notification' })),
      'error.close': () => click(screen.getByRole('button', { name: 'Close message' })),
      'xstate.after.noticeTimeout.dataQueueTabs.ready.browsing.saved': () => pass(NOTIFICATION_TIMEOUT_MS),
      'xstate.after.noticeTimeout.dataQueueTabs.ready.browsing.orderFailed': () => pass(NOTIFICATION_TIMEOUT_MS),
    };
    for (const id of Object.keys(fakes)) {
      events[`xstate.done.actor.${id}`] = ({ event }) => answer(fakes[id]!, event);
      events[`xstate.error.actor.${id}`] = ({ event }) => answer(fakes[id]!, event);
    }
    return {
      states: Object.fromEntries(['loading', 'failed', 'ready'].map((key) => [key, (s: Snap) => expectScreen(s)])),
      events: events as never,
    };
  },
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const stepsOf = (p: ModelPath<Snap>) => p.steps.map((s) => s.event.type.replace('xstate.', '').replace('.dataQueueTabs.ready.browsing', '')).join(' → ') || 'loading';

describe('the Data Queue\'s tabs (shortest paths on the rendered screen)', () => {
  it('reach every state the tabs machine has', () => {
    const reached = reachedStates(paths);
    for (const value of ['"loading"', '"failed"', '{"ready":{"browsing":"idle"}}', '{"ready":{"browsing":"saved"}}', '{"ready":{"browsing":"orderFailed"}}',
      '{"ready":"naming"}', '{"ready":{"savingName":"creating"}}', '{"ready":{"savingName":"renaming"}}', '{"ready":"confirmingDelete"}',
      '{"ready":"deleting"}', '{"ready":"savingOrder"}', '{"ready":"changingCards"}']) expect(reached, value).toContain(value);
  });

  it.each(named(paths, stepsOf))('%s', async (_name, path) => {
    await runPath(path, dataQueueTabsMachine, view);
  });
});

describe('live counts', () => {
  it('shows the counts a formula\'s live status brings as records move, without loading the tabs again', async () => {
    let speak: ((event: { type: string; [k: string]: unknown }) => void) | undefined;
    const r = await renderQueue(dataQueueTabsMachine, (s) => { speak = s; });
    await answer(r.load as never, { type: 'xstate.done.actor.loadTabs', output: LISTINGS['one tab'] } as never);
    expect(screen.getByRole('link', { name: 'Ready: 2 records of Spring appeal' })).toBeTruthy();
    const status = (counts: Record<string, number>): FormulaStatus => ({
      id: A.id, status: 'processing', jobStatus: 'running', enabled: true, paused: false, needsReprocess: false, nextRunAt: null, lastError: null,
      lastRun: null, buckets: {}, counts,
    });
    await act(async () => speak!({ type: 'stream.snapshot', statuses: [status({ ...COUNTS[A.id], 'ready-records': 2 })] }));
    await act(async () => speak!({ type: 'stream.status', status: status({ ...COUNTS[A.id], 'ready-records': 7, 'needs-attention': 0, exception: 1 }) }));
    await settle();
    expect(screen.getByRole('link', { name: 'Ready: 7 records of Spring appeal' }).getAttribute('href')).toBe(`/${A.id}/ready-records`);
    expect(screen.getByRole('link', { name: 'Needs Attention: 0 records of Spring appeal' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Exceptions: 1 record of Spring appeal' }).getAttribute('href')).toBe(`/${A.id}/exception`);
    expect(r.load.calls).toHaveLength(1);
    r.auth.stop();
  });
});

describe('next run', () => {
  it('shows on a live scheduled formula\'s card when its schedule runs it next, and not once it is paused', async () => {
    let speak: ((event: { type: string; [k: string]: unknown }) => void) | undefined;
    const r = await renderQueue(dataQueueTabsMachine, (s) => { speak = s; });
    await answer(r.load as never, { type: 'xstate.done.actor.loadTabs', output: LISTINGS['one tab'] } as never);
    const status = (id: string, over: Partial<FormulaStatus>): FormulaStatus => ({
      id, status: 'active', jobStatus: 'scheduled', enabled: true, paused: false, needsReprocess: false, nextRunAt: null, lastError: null,
      lastRun: null, buckets: {}, counts: COUNTS[id] ?? {}, ...over,
    });
    const nextRunOf = (name: string) => within(screen.getByRole('group', { name: `Job of ${name}` })).queryByText(/^Next run:/);
    const at = '2026-11-28T14:00:00.000Z';
    // A runs on its schedule; B, paused, has no next run from the server
    await act(async () => speak!({ type: 'stream.snapshot', statuses: [status(A.id, { nextRunAt: at }), status(B.id, { status: 'paused', jobStatus: 'paused', paused: true })] }));
    await settle();
    expect(nextRunOf(A.name!)?.textContent).toBe(`Next run: ${runTimeWords(at)}`);
    expect(nextRunOf(A.name!)?.querySelector('time')?.getAttribute('dateTime')).toBe(at);
    expect(nextRunOf(B.name!)).toBeNull();
    await act(async () => speak!({ type: 'stream.status', status: status(A.id, { status: 'paused', jobStatus: 'paused', paused: true }) }));
    await settle();
    expect(nextRunOf(A.name!)).toBeNull();
    r.auth.stop();
  });
});

describe('the suite can fail', () => {
  it('finds a machine that takes any name, SPEC.md\'s rule broken on purpose', async () => {
    const refused = paths.filter((p) => p.steps.some((s) => s.state.matches({ ready: 'naming' }) && s.state.context.name === BAD_NAME && s.event.type === 'name.submit'));
    await expectBrokenGuardToFail(dataQueueTabsMachine, 'isNameValid', { paths: refused, view, holds: true, every: true });
  });

  it('finds a screen that keeps the failed order instead of restoring the previous one', async () => {
    const failedOrder = paths.filter((p) => p.steps.some((s) => s.event.type === 'xstate.error.actor.saveOrder'));
    expect(failedOrder.length).toBeGreaterThan(0);
    // the refusal answered as a success: the screen keeps the new order, where the paths expect the old one back
    const keepingView: typeof view = {
      ...view,
      params: (r) => {
        const p = view.params(r);
        const events = p.events as Record<string, unknown>;
        return { ...p, events: { ...events, 'xstate.error.actor.saveOrder': () => answer(r.order as never, { type: 'xstate.done.actor.saveOrder', output: { ...T1, formulaIds: [B.id, A.id] } } as never) } } as never;
      },
    };
    let failures = 0;
    await expectingFailure(async () => {
      for (const path of failedOrder) {
        await runPath(path, dataQueueTabsMachine, keepingView).catch(() => { failures += 1; });
        cleanup();
      }
    });
    expect(failures).toBe(failedOrder.length);
  });
});
