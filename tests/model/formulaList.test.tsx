/**
 * Model-based tests of the formula list (src/machines/formulaList.ts) on the rendered All Formulas
 * screen: loading, a failure and its retry, the list, the empty state, 'Go to Connections' when no
 * data source can be a source, 'Create a formula' opening the wizard on the new draft, that draft
 * deleted when the wizard closes with nothing of it saved, and a draft deleted after a
 * confirmation. The server's answers are fakes that wait until the path gives them.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import { policiesFor } from '../../src/domain/roles.ts';
import { formulaListMachine, hasSourceFor, isUntouchedDraft } from '../../src/machines/formulaList.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import type { DataSourceListItem } from '../../src/services/integrations.ts';
import { FormulaList } from '../../src/views/formulas/AllFormulasPage.tsx';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, expectingFailure, named, proofWaitOf, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof formulaListMachine>;
type Listing = { formulas: FormulaView[]; sources: DataSourceListItem[] | null };

const source = (system: DataSourceListItem['system']): DataSourceListItem => ({
  id: `ds-${system}`, system, displayName: system === 'sandbox-crm' ? 'Sandbox CRM' : 'Uploads', createdOn: '', createdBy: null, modifiedOn: '', modifiedBy: null, usedByCount: 0,
});
const formula = (id: string, name: string | null, isDraft = true): FormulaView => ({
  id, name, isDraft, usesFileUpload: false, sourceDataSource: null, firstDestinationDataSource: null, sampleUploadId: null,
  status: isDraft ? 'inactive' : 'active', jobStatus: null, needsReprocess: !isDraft, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-02T00:00:00Z',
});

const LISTINGS: Record<string, Listing> = {
  two: { formulas: [formula('f1', 'Spring appeal'), formula('f2', null, false)], sources: [source('sandbox-crm')] },
  none: { formulas: [], sources: [source('sandbox-crm')] },
  'no source': { formulas: [], sources: [] },
  // a role that may not see data sources is never told to add one
  'sources not visible': { formulas: [], sources: null },
};
const DRAFT = formula('f-new', null);
// the list as it is when the wizard closes on that draft: left as it was made, or named
LISTINGS['draft left'] = { formulas: [DRAFT, formula('f1', 'Spring appeal')], sources: [source('sandbox-crm')] };
LISTINGS['draft named'] = { formulas: [{ ...DRAFT, name: 'Autumn appeal' }, formula('f1', 'Spring appeal')], sources: [source('sandbox-crm')] };

const model = testModel(formulaListMachine, {
  events: (s) => {
    const snap = s as Snap;
    if (snap.matches('loading')) {
      // once a draft was made for the wizard, the list holds it: as it was made, or named in the wizard
      const listings = snap.context.opened ? [LISTINGS['draft left']!, LISTINGS['draft named']!] : [LISTINGS.two!, LISTINGS.none!, LISTINGS['no source']!, LISTINGS['sources not visible']!];
      return [
        ...listings.map((output) => ({ type: 'xstate.done.actor.loadList', output })),
        { type: 'xstate.error.actor.loadList', error: new Error('offline') },
      ] as never;
    }
    if (snap.matches('creating')) return [{ type: 'xstate.done.actor.createDraft', output: DRAFT }, { type: 'xstate.error.actor.createDraft', error: new Error('no') }] as never;
    if (snap.matches('failed')) return [{ type: 'list.reload' }];
    if (snap.matches('confirmingDelete')) return [{ type: 'delete.confirm' }, { type: 'delete.cancel' }];
    if (snap.matches('deleting')) return [{ type: 'xstate.done.actor.removeFormula' }, { type: 'xstate.error.actor.removeFormula', error: new Error('no') }] as never;
    if (snap.matches('discarding')) return [{ type: 'xstate.done.actor.discardDraft' }, { type: 'xstate.error.actor.discardDraft', error: new Error('no') }] as never;
    // after a deletion or a failure, the list is read again: what follows is the paths' from loading
    if (snap.context.notice || snap.context.error) return [{ type: 'wizard.closed' }];
    // a draft is deleted from the first list (the others hold the wizard's draft, whose paths are its own)
    const drafts = snap.context.formulas === LISTINGS.two!.formulas && !snap.context.created
      ? snap.context.formulas.filter((f) => f.isDraft).map((f) => ({ type: 'formula.delete', id: f.id }) as const) : [];
    // a Create button is offered only where a data source can be a source
    return [...(hasSourceFor(snap.context.sources) ? [{ type: 'formula.create' } as const] : []), { type: 'wizard.closed' }, ...drafts];
  },
  serializeState: (s) => {
    const { value, context: c } = s as Snap;
    return JSON.stringify([value, c.formulas.map((f) => `${f.id}:${f.name ?? ''}`).join(','), c.sources?.length ?? 'not visible', !!c.created, c.opened, c.toDelete?.id ?? null, c.notice, c.error]);
  },
});

const authLogic = setup({}).createMachine({ context: { user: { policies: policiesFor(['Formula Producer']) } } });

function renderList(machine: typeof formulaListMachine) {
  const load = fakeCall<void, Listing>('load the list');
  const create = fakeCall<void, FormulaView>('create a draft');
  const remove = fakeCall<{ id: string }, void>('delete a formula');
  const auth = createActor(authLogic).start();
  const router = createMemoryRouter([{ path: '*', element: <FormulaList title="All Formulas" logic={machine.provide({ actors: { loadList: load.logic, createDraft: create.logic, removeFormula: remove.logic } as never })} /> }], {
    initialEntries: ['/integrations-formulas'],
  });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { load, create, remove, router, auth };
}

const view: ModelView<typeof formulaListMachine, ReturnType<typeof renderList>> = {
  render: (machine) => renderList(machine),
  stop: (r) => r.auth.stop(),
  params: (r) => ({
    states: {
      loading: async () => { await screen.findByLabelText('Loading formulas'); },
      failed: async () => { await screen.findByText('The formulas could not be loaded'); },
      ready: async (s) => {
        const { formulas, sources, created, error, notice } = (s as Snap).context;
        await waitFor(() => expect(screen.queryByLabelText('Loading formulas')).toBeNull());
        if (!hasSourceFor(sources)) {
          await screen.findByRole('link', { name: 'Go to Connections' });
          expect(screen.queryByRole('button', { name: 'Create a formula' })).toBeNull();
        } else {
          await screen.findByRole('button', { name: 'Create a formula' });
          expect(screen.queryByText(/^A formula reads from a data source/)).toBeNull();
        }
        if (formulas.length) {
          const table = await screen.findByRole('table', { name: 'Formulas' });
          for (const f of formulas) expect(table.textContent).toContain(f.name ?? 'Untitled formula');
          if (formulas.some((f) => !f.isDraft)) expect(table.textContent).toContain('Needs reprocess');
          // Edit opens a draft at its first step not set up, a live formula at its review
          for (const f of formulas) {
            const edit = screen.getByRole('link', { name: `Edit ${f.name ?? 'Untitled formula'}` });
            expect(new URLSearchParams(edit.getAttribute('href')!.split('?')[1]).get('wizardStep')).toBe(f.isDraft ? 'data-sources' : 'review');
          }
          // drafts offer Delete; a live formula does not
          for (const f of formulas) {
            expect(screen.queryByRole('button', { name: `Delete ${f.name ?? 'Untitled formula'}` }) !== null, f.id).toBe(f.isDraft);
          }
        } else if (hasSourceFor(sources)) {
          await screen.findByText('No formulas yet. Create one to start moving records.');
        }
        if (created) await waitFor(() => expect(r.router.state.location.search).toBe(`?wizardFormulaId=${created.id}&wizardStep=data-sources`));
        if (error) expect((await screen.findByRole('alert')).textContent).toBe(error);
        if (notice) expect((await screen.findByRole('status')).textContent).toBe(notice);
        else expect(screen.queryByRole('status')).toBeNull();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete draft formula' })).toBeNull());
      },
      confirmingDelete: async (s) => {
        const dialog = await screen.findByRole('dialog', { name: 'Delete draft formula' });
        expect(dialog.textContent).toContain(`Delete the draft ${(s as Snap).context.toDelete!.name ?? 'Untitled formula'}?`);
      },
      deleting: async (s) => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Delete' }).getAttribute('data-loading')).toBe('true'));
        expect(r.remove.calls.at(-1)).toEqual({ id: (s as Snap).context.toDelete!.id });
      },
      discarding: async (s) => {
        await screen.findByLabelText('Loading formulas');
        // the draft the wizard was opened on, and only when nothing of it was saved
        expect(r.remove.calls.at(-1)).toEqual({ id: (s as Snap).context.opened });
        expect(isUntouchedDraft((s as Snap).context.formulas.find((f) => f.id === (s as Snap).context.opened)!)).toBe(true);
      },
      creating: async () => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Create a formula' }).getAttribute('data-loading')).toBe('true'));
      },
    },
    events: {
      'xstate.done.actor.loadList': (step) => r.load.answer(step.event),
      'xstate.error.actor.loadList': (step) => r.load.answer(step.event),
      'xstate.done.actor.createDraft': (step) => r.create.answer(step.event),
      'xstate.error.actor.createDraft': (step) => r.create.answer(step.event),
      'list.reload': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Try again' })); },
      'wizard.closed': async (step) => {
        // the list reloads when the wizard closes: open and close it through the address
        const opened = (step.state as Snap).context.opened ?? 'f1';
        await act(async () => { await r.router.navigate(`/integrations-formulas?wizardFormulaId=${opened}&wizardStep=review`); });
        await act(async () => { await r.router.navigate('/integrations-formulas'); });
      },
      'formula.delete': async (step) => {
        const { id } = step.event as unknown as { id: string };
        const f = (step.state as Snap).context.formulas.find((x) => x.id === id)!;
        fireEvent.click(await screen.findByRole('button', { name: `Delete ${f.name ?? 'Untitled formula'}` }));
      },
      'delete.confirm': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Delete' })); },
      'delete.cancel': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Keep it' })); },
      'xstate.done.actor.removeFormula': (step) => r.remove.answer(step.event),
      'xstate.error.actor.removeFormula': (step) => r.remove.answer(step.event),
      'xstate.done.actor.discardDraft': (step) => r.remove.answer(step.event),
      'xstate.error.actor.discardDraft': (step) => r.remove.answer(step.event),
      'formula.create': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Create a formula' })); },
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('All Formulas (formula-list shortest paths on the rendered screen)', () => {
  it.each(named(paths, (p) => p.steps.map((s) => s.event.type.replace('xstate.', '')).join(' → ')))('%s', async (_name, path) => {
    await runPath(path, formulaListMachine, view);
  });
});

describe('drafts that go', () => {
  it('reach deleting a draft (confirmed, kept, refused) and discarding the wizard\'s untouched draft', () => {
    const reached = new Set(paths.flatMap((p) => [...p.steps.map((st) => st.state), p.state]).map((st) => JSON.stringify(st.value)));
    for (const state of ['confirmingDelete', 'deleting', 'discarding']) expect(reached.has(JSON.stringify(state)), state).toBe(true);
    const ends = paths.map((p) => p.state.context);
    expect(ends.some((c) => c.notice === 'The draft Spring appeal was deleted.')).toBe(true);
    expect(ends.some((c) => c.error === 'The draft Spring appeal could not be deleted.')).toBe(true);
  });

  it('fails a machine that would keep the draft the wizard left untouched', async () => {
    const discarding = paths.filter((p) => p.steps.some((st) => st.state.matches('discarding')));
    await expectBrokenGuardToFail(formulaListMachine, 'isLeftUntouched', { paths: discarding, view, every: true });
  });

  it('fails a machine that would delete a draft the wizard named', async () => {
    const kept = paths.filter((p) => p.steps.some((st, i) => i > 0 && st.state.matches('ready') && st.state.context.formulas === LISTINGS['draft named']!.formulas));
    await expectBrokenGuardToFail(formulaListMachine, 'isLeftUntouched', { paths: kept, view, holds: true });
  });
});

describe('the suite can fail', () => {
  it('notices a screen that shows another list than the server gave', async () => {
    // every listing answered as an empty one: each path that expects formulas in the table fails
    const emptying: typeof view = {
      ...view,
      params: (r) => {
        const p = view.params(r);
        return { ...p, events: { ...p.events, 'xstate.done.actor.loadList': () => r.load.answer({ type: 'xstate.done.actor.loadList', output: LISTINGS.none }) } };
      },
    };
    const listed = paths.filter((p) => [...p.steps.map((st) => st.state), p.state].some((st) => st.matches('ready') && st.context.formulas.length > 0));
    expect(listed.length).toBeGreaterThan(0);
    let failures = 0;
    for (const path of listed) {
      await expectingFailure(() => runPath(path, formulaListMachine, emptying), proofWaitOf(path)).catch(() => { failures += 1; });
      cleanup();
    }
    expect(failures).toBe(listed.length);
  });
});
