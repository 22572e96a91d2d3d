/**
 * Model-based tests of the formula list (src/machines/formulaList.ts) on the rendered All Formulas
 * screen: loading, a failure and its retry, the list, the empty state, 'Go to Connections' when no
 * data source can be a source, 'Create a formula' opening the wizard on the new draft, that draft
 * deleted when the wizard closes with nothing of it saved, and a draft deleted after a
 * confirmation; a live formula archived after a confirmation, an archived one unarchived or
 * deleted after a confirmation that says how many records go, and a formula copied as a draft that
 * opens in the wizard at its first step not set up. The server's answers are fakes that wait until
 * the path gives them.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import { policiesFor } from '../../src/domain/roles.ts';
import { editStepOf } from '../../src/domain/formula/wizard.ts';
import { formulaListMachine, hasSourceFor, isArchivable, isArchived, isDeletable, isUntouchedDraft } from '../../src/machines/formulaList.ts';
import type { Deletion, FormulaView } from '../../src/services/formulas.ts';
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
// a live formula and an archived one: archived, unarchived, deleted, copied
const ARCHIVED: FormulaView = { ...formula('g2', 'Old appeal', false), status: 'inactive', archivedOn: '2026-11-20T00:00:00Z' };
LISTINGS.lifecycle = { formulas: [formula('g1', 'Gala donors', false), ARCHIVED], sources: [source('sandbox-crm')] };
const END = { dataSourceId: 'ds-sandbox-crm', object: 'constituents', settings: {}, system: 'sandbox-crm' as const, displayName: 'Sandbox CRM', hasAdditionalSettings: false };
// a copy has the original's data sources and parts: the wizard opens it at its first step not set up
const COPY: FormulaView = { ...formula('g-copy', 'Copy of Gala donors'), sourceDataSource: END, firstDestinationDataSource: END, parts: ['mapping'] };
const DELETION: Deletion = { records: 12, runs: 3 };

const model = testModel(formulaListMachine, {
  events: (s) => {
    const snap = s as Snap;
    if (snap.matches('loading')) {
      // once a draft was made for the wizard, the list holds it: as it was made, or named in the wizard
      const listings = snap.context.opened ? [LISTINGS['draft left']!, LISTINGS['draft named']!]
        // the lifecycle list is read first, not again after its own changes (their paths are its own)
        : snap.context.formulas === LISTINGS.lifecycle!.formulas ? [LISTINGS.two!]
        : [LISTINGS.two!, LISTINGS.none!, LISTINGS['no source']!, LISTINGS['sources not visible']!, LISTINGS.lifecycle!];
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
    if (snap.matches('countingDeletion')) return [{ type: 'xstate.done.actor.loadDeletion', output: DELETION }, { type: 'xstate.error.actor.loadDeletion', error: new Error('no') }] as never;
    if (snap.matches('confirmingArchive')) return [{ type: 'archive.confirm' }, { type: 'archive.cancel' }];
    if (snap.matches('archiving')) return [{ type: 'xstate.done.actor.archiveFormula', output: ARCHIVED }, { type: 'xstate.error.actor.archiveFormula', error: new Error('no') }] as never;
    if (snap.matches('unarchiving')) return [{ type: 'xstate.done.actor.unarchiveFormula', output: ARCHIVED }, { type: 'xstate.error.actor.unarchiveFormula', error: new Error('no') }] as never;
    if (snap.matches('copying')) return [{ type: 'xstate.done.actor.copyFormula', output: COPY }, { type: 'xstate.error.actor.copyFormula', error: new Error('no') }] as never;
    // after a deletion or a failure, the list is read again: what follows is the paths' from loading
    if (snap.context.notice || snap.context.error) return [{ type: 'wizard.closed' }];
    // a draft is deleted from the first list (the others hold the wizard's draft, whose paths are its own)
    const drafts = snap.context.formulas === LISTINGS.two!.formulas && !snap.context.created
      ? snap.context.formulas.filter((f) => f.isDraft).map((f) => ({ type: 'formula.delete', id: f.id }) as const) : [];
    // the lifecycle list offers each command where the row shows it (creating from it is the other lists' paths); the copy opens the wizard, which closes
    if (snap.context.formulas === LISTINGS.lifecycle!.formulas) {
      return snap.context.created ? [{ type: 'wizard.closed' }] : snap.context.formulas.flatMap((f) => [
        ...(isArchivable(f) ? [{ type: 'formula.archive', id: f.id } as const, { type: 'formula.copy', id: f.id } as const] : []),
        ...(isArchived(f) ? [{ type: 'formula.unarchive', id: f.id } as const, { type: 'formula.delete', id: f.id } as const] : []),
      ]);
    }
    // a Create button is offered only where a data source can be a source
    return [...(hasSourceFor(snap.context.sources) ? [{ type: 'formula.create' } as const] : []), { type: 'wizard.closed' }, ...drafts];
  },
  serializeState: (s) => {
    const { value, context: c } = s as Snap;
    return JSON.stringify([
      value, c.formulas.map((f) => `${f.id}:${f.name ?? ''}`).join(','), c.sources?.length ?? 'not visible', c.created?.id ?? null, c.opened,
      c.toDelete?.id ?? null, c.deletion, c.toArchive?.id ?? null, c.acting?.id ?? null, c.notice, c.error,
    ]);
  },
});

const authFor = (roles: string[]) => setup({}).createMachine({ context: { user: { policies: policiesFor(roles) } } });

function renderList(machine: typeof formulaListMachine, roles = ['Formula Producer']) {
  const load = fakeCall<void, Listing>('load the list');
  const create = fakeCall<void, FormulaView>('create a draft');
  const remove = fakeCall<{ id: string }, void>('delete a formula');
  const deletion = fakeCall<{ id: string }, Deletion>('count what a deletion takes');
  const archive = fakeCall<{ id: string }, FormulaView>('archive a formula');
  const unarchive = fakeCall<{ id: string }, FormulaView>('unarchive a formula');
  const copy = fakeCall<{ id: string }, FormulaView>('copy a formula');
  const auth = createActor(authFor(roles)).start();
  const actors = {
    loadList: load.logic, createDraft: create.logic, removeFormula: remove.logic, loadDeletion: deletion.logic,
    archiveFormula: archive.logic, unarchiveFormula: unarchive.logic, copyFormula: copy.logic,
  };
  const router = createMemoryRouter([{ path: '*', element: <FormulaList title="All Formulas" logic={machine.provide({ actors } as never)} /> }], {
    initialEntries: ['/integrations-formulas'],
  });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { load, create, remove, deletion, archive, unarchive, copy, router, auth };
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
          // the list comes with the screen's actions: once those are there, so is the table (and a
          // screen that lost the list fails here at once, not after a wait)
          const table = screen.getByRole('table', { name: 'Formulas' });
          for (const f of formulas) expect(table.textContent).toContain(f.name ?? 'Untitled formula');
          if (formulas.some((f) => !f.isDraft)) expect(table.textContent).toContain('Needs reprocess');
          // Edit opens a draft at its first step not set up, a live formula at its review; an archived
          // formula is read-only until unarchived: it is opened, never edited
          for (const f of formulas) {
            const name = f.name ?? 'Untitled formula';
            expect(screen.queryByRole('link', { name: `${isArchived(f) ? 'Edit' : 'Open'} ${name}` }), `${f.id} Edit or Open`).toBeNull();
            const edit = screen.getByRole('link', { name: `${isArchived(f) ? 'Open' : 'Edit'} ${name}` });
            expect(new URLSearchParams(edit.getAttribute('href')!.split('?')[1]).get('wizardStep')).toBe(f.isDraft ? 'data-sources' : 'review');
          }
          // drafts and archived formulas offer Delete, live ones Archive, archived ones Unarchive; every one Copy
          for (const f of formulas) {
            const offers = (command: string) => screen.queryByRole('button', { name: `${command} ${f.name ?? 'Untitled formula'}` }) !== null;
            expect(offers('Delete'), `${f.id} Delete`).toBe(isDeletable(f));
            expect(offers('Archive'), `${f.id} Archive`).toBe(isArchivable(f));
            expect(offers('Unarchive'), `${f.id} Unarchive`).toBe(isArchived(f));
            expect(offers('Copy'), `${f.id} Copy`).toBe(true);
            if (isArchived(f)) expect(within(screen.getByRole('group', { name: `Status of ${f.name}` })).getByText('Archived')).toBeTruthy();
          }
        } else if (hasSourceFor(sources)) {
          await screen.findByText('No formulas yet. Create one to start moving records.');
        }
        // a new draft opens at its first step, a copy at its first step not set up
        if (created) await waitFor(() => expect(r.router.state.location.search).toBe(`?wizardFormulaId=${created.id}&wizardStep=${editStepOf(created)}`));
        if (error) expect((await screen.findByRole('alert')).textContent).toBe(error);
        if (notice) expect((await screen.findByRole('status')).textContent).toBe(notice);
        else expect(screen.queryByRole('status')).toBeNull();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: /^(Delete draft formula|Delete formula|Archive formula)$/ })).toBeNull());
      },
      confirmingDelete: async (s) => {
        const { toDelete, deletion } = (s as Snap).context;
        if (toDelete!.isDraft) {
          const dialog = await screen.findByRole('dialog', { name: 'Delete draft formula' });
          expect(dialog.textContent).toContain(`Delete the draft ${toDelete!.name ?? 'Untitled formula'}?`);
        } else {
          // the question says how many records (and runs) go
          const dialog = await screen.findByRole('dialog', { name: 'Delete formula' });
          expect(dialog.textContent).toContain(`Delete the formula ${toDelete!.name}? Its ${deletion!.records} records and ${deletion!.runs} runs go with it`);
        }
      },
      countingDeletion: async (s) => {
        const { toDelete } = (s as Snap).context;
        await waitFor(() => expect(screen.getByRole('button', { name: `Delete ${toDelete!.name}` }).getAttribute('data-loading')).toBe('true'));
        expect(r.deletion.calls.at(-1)).toEqual({ id: toDelete!.id });
      },
      confirmingArchive: async (s) => {
        const dialog = await screen.findByRole('dialog', { name: 'Archive formula' });
        expect(dialog.textContent).toContain(`Archive ${(s as Snap).context.toArchive!.name}? It stops`);
      },
      archiving: async (s) => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Archive' }).getAttribute('data-loading')).toBe('true'));
        expect(r.archive.calls.at(-1)).toEqual({ id: (s as Snap).context.toArchive!.id });
      },
      unarchiving: async (s) => {
        const { acting } = (s as Snap).context;
        await waitFor(() => expect(screen.getByRole('button', { name: `Unarchive ${acting!.name}` }).getAttribute('data-loading')).toBe('true'));
        expect(r.unarchive.calls.at(-1)).toEqual({ id: acting!.id });
      },
      copying: async (s) => {
        const { acting } = (s as Snap).context;
        await waitFor(() => expect(screen.getByRole('button', { name: `Copy ${acting!.name}` }).getAttribute('data-loading')).toBe('true'));
        expect(r.copy.calls.at(-1)).toEqual({ id: acting!.id });
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
      'formula.archive': async (step) => { fireEvent.click(await screen.findByRole('button', { name: `Archive ${nameIn(step)}` })); },
      'archive.confirm': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Archive' })); },
      'archive.cancel': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Keep it running' })); },
      'formula.unarchive': async (step) => { fireEvent.click(await screen.findByRole('button', { name: `Unarchive ${nameIn(step)}` })); },
      'formula.copy': async (step) => { fireEvent.click(await screen.findByRole('button', { name: `Copy ${nameIn(step)}` })); },
      'xstate.done.actor.loadDeletion': (step) => r.deletion.answer(step.event),
      'xstate.error.actor.loadDeletion': (step) => r.deletion.answer(step.event),
      'xstate.done.actor.archiveFormula': (step) => r.archive.answer(step.event),
      'xstate.error.actor.archiveFormula': (step) => r.archive.answer(step.event),
      'xstate.done.actor.unarchiveFormula': (step) => r.unarchive.answer(step.event),
      'xstate.error.actor.unarchiveFormula': (step) => r.unarchive.answer(step.event),
      'xstate.done.actor.copyFormula': (step) => r.copy.answer(step.event),
      'xstate.error.actor.copyFormula': (step) => r.copy.answer(step.event),
    },
  }),
};

/** the name of the formula an event names */
const nameIn = (step: { state: unknown; event: unknown }) => {
  const { id } = step.event as { id: string };
  return (step.state as Snap).context.formulas.find((f) => f.id === id)!.name;
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

describe('a formula\'s lifecycle', () => {
  const through = (state: Parameters<Snap['matches']>[0]) => paths.filter((p) => p.steps.some((st) => st.state.matches(state)));

  it('reaches archiving, unarchiving, deleting an archived formula with its count, and copying, each done and refused', () => {
    const reached = new Set(paths.flatMap((p) => [...p.steps.map((st) => st.state), p.state]).map((st) => JSON.stringify(st.value)));
    for (const state of ['confirmingArchive', 'archiving', 'unarchiving', 'countingDeletion', 'copying']) expect(reached.has(JSON.stringify(state)), state).toBe(true);
    const said = paths.flatMap((p) => [...p.steps.map((st) => st.state), p.state]).flatMap((st) => [st.context.notice, st.context.error]);
    for (const words of [
      'The formula Gala donors was archived.', 'The formula Gala donors could not be archived.',
      'The formula Old appeal is back, inactive: activate it to run it again.', 'The formula Old appeal could not be unarchived.',
      'The formula Old appeal was deleted.', 'The formula Old appeal could not be deleted.', 'The formula Gala donors could not be copied.',
    ]) expect(said, words).toContain(words);
    expect(paths.some((p) => p.steps.some((st) => st.state.matches('ready') && st.state.context.created?.id === COPY.id))).toBe(true);
  });

  it('fails a machine that would archive without asking, or delete a live formula', async () => {
    await expectBrokenGuardToFail(formulaListMachine, 'isArchivable', { paths: through('confirmingArchive').slice(0, 2), view, every: true });
    await expectBrokenGuardToFail(formulaListMachine, 'isArchivedFormula', { paths: through('countingDeletion').slice(0, 2), view, every: true });
  });

  it('fails a screen whose delete question does not say how many records go', async () => {
    const asked = paths.filter((p) => p.steps.some((st) => st.state.matches('confirmingDelete') && st.state.context.deletion !== null));
    expect(asked.length).toBeGreaterThan(0);
    const miscounting: typeof view = {
      ...view,
      params: (r) => {
        const p = view.params(r);
        return { ...p, events: { ...p.events, 'xstate.done.actor.loadDeletion': () => r.deletion.answer({ type: 'xstate.done.actor.loadDeletion', output: { records: 1, runs: 3 } }) } };
      },
    };
    for (const path of asked.slice(0, 2)) {
      await expect(expectingFailure(() => runPath(path, formulaListMachine, miscounting), proofWaitOf(path))).rejects.toThrow();
      cleanup();
    }
  });

  it('offers none of it to roles that may neither create nor delete formulas', async () => {
    for (const roles of [['View Only'], ['Data Processor']]) {
      const r = renderList(formulaListMachine, roles);
      await waitFor(() => expect(r.load.waiting).toBe(true));
      r.load.resolve(LISTINGS.lifecycle!);
      await screen.findByRole('table', { name: 'Formulas' });
      for (const command of ['Copy', 'Archive', 'Unarchive', 'Delete']) expect(screen.queryByRole('button', { name: new RegExp(`^${command} `) }), `${roles[0]} ${command}`).toBeNull();
      expect(within(screen.getByRole('group', { name: 'Status of Old appeal' })).getByText('Archived')).toBeTruthy();
      r.auth.stop();
      cleanup();
    }
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
