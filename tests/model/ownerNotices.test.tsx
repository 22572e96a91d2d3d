/**
 * Model-based tests of the user menu's choice of e-mails about what the user owns
 * (ownerNoticesMachine) on the rendered item: paths from the machine's graph, each event a click on
 * the item or the account-management service's answer (faked at its boundary), each state what the
 * item shows: not offered until read, on or off, disabled while saving, a failed save said and the
 * choice kept.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { OWNER_NOTICES_FAILED, OWNER_NOTICES_LABEL, ownerNoticesMachine } from '../../src/machines/ownerNotices.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { OwnerNoticesItem } from '../../src/views/shell/OwnerNoticesItem.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenMachineToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof ownerNoticesMachine>;
const REFUSED = new ApiError(500, { title: 'server-error', status: 500 }, { silent: true });

const model = testModel(ownerNoticesMachine, {
  input: { orgId: 'org-1' },
  events: ((s: Snap) => {
    if (s.matches('loading')) {
      return [{ type: 'xstate.done.actor.loadChoice', output: true }, { type: 'xstate.done.actor.loadChoice', output: false }, { type: 'xstate.error.actor.loadChoice', error: REFUSED }];
    }
    if (s.matches('unavailable')) return [];
    if (s.matches('saving')) return [{ type: 'xstate.done.actor.saveChoice', output: !s.context.on }, { type: 'xstate.error.actor.saveChoice', error: REFUSED }];
    return s.context.failed ? [] : [{ type: 'notices.toggle' }];
  }) as never,
  serializeState: ((s: Snap) => JSON.stringify([s.value, s.context.on, s.context.failed])) as never,
});

interface Rendered { load: FakeCall<{ orgId: string }, boolean>; save: FakeCall<{ orgId: string; on: boolean }, boolean> }

const item = () => screen.queryByRole('menuitemcheckbox', { name: OWNER_NOTICES_LABEL });

const view: ModelView<typeof ownerNoticesMachine, Rendered> = {
  render(machine) {
    const load = fakeCall<{ orgId: string }, boolean>('read the choice');
    const save = fakeCall<{ orgId: string; on: boolean }, boolean>('save the choice');
    render(<MantineProvider><OwnerNoticesItem orgId="org-1" logic={machine.provide({ actors: { loadChoice: load.logic, saveChoice: save.logic } as never })} /></MantineProvider>);
    return { load, save };
  },
  params: ({ load, save }) => ({
    states: {
      loading: async () => { await waitFor(() => expect(item()?.hasAttribute('disabled')).toBe(true)); },
      unavailable: async () => { await waitFor(() => expect(item()).toBeNull()); },
      ready: async (s) => {
        const c = (s as Snap).context;
        await waitFor(() => expect(item()?.getAttribute('aria-checked')).toBe(String(c.on)));
        expect(item()!.hasAttribute('disabled')).toBe(false);
        expect(!!screen.queryByText(OWNER_NOTICES_FAILED)).toBe(c.failed);
      },
      saving: async (s) => {
        // the choice asked for is the other one; the item shows the saved one until it is saved
        expect((await save.called()).on).toBe(!(s as Snap).context.on);
        expect(item()!.hasAttribute('disabled')).toBe(true);
        expect(item()!.getAttribute('aria-checked')).toBe(String((s as Snap).context.on));
      },
    },
    events: {
      'notices.toggle': () => { fireEvent.click(item()!); },
      'xstate.done.actor.loadChoice': ({ event }) => load.answer(event),
      'xstate.error.actor.loadChoice': ({ event }) => load.answer(event),
      'xstate.done.actor.saveChoice': ({ event }) => save.answer(event),
      'xstate.error.actor.saveChoice': ({ event }) => save.answer(event),
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('the e-mail choice in the user menu (shortest paths on the rendered item)', () => {
  it('reaches loading, unavailable, ready (on, off, after a failed save) and saving', () => {
    expect([...reachedStates(paths)].sort()).toEqual(['"loading"', '"ready"', '"saving"', '"unavailable"']);
    expect(paths.some((p) => p.state.context.failed)).toBe(true);
  });
  it.each(named(paths))('%s', async (_d, path) => runPath(path, ownerNoticesMachine, view));
});

describe('the suite can fail', () => {
  it('finds an item that keeps quiet about a choice it could not save', async () => {
    const failedSaves = paths.filter((p) => p.state.context.failed);
    const quiet = ownerNoticesMachine.provide({ actions: { sayNotSaved: () => undefined } });
    await expectBrokenMachineToFail(ownerNoticesMachine, quiet, 'a failed save not said', { paths: failedSaves, view, every: true });
  });
  it('finds an item that shows a choice the server did not answer', async () => {
    // shown on once the server says so
    const saved = paths.filter((p) => p.steps.some((st) => st.state.matches('ready') && st.state.context.on === true));
    const stale = ownerNoticesMachine.provide({ actions: { takeChoice: () => undefined } });
    await expectBrokenMachineToFail(ownerNoticesMachine, stale, 'the answer not taken', { paths: saved.slice(0, 2), view, every: true });
  });
});
