/**
 * Model-based tests of the formula list (src/machines/formulaList.ts) on the rendered All Formulas
 * screen: loading, a failure and its retry, the list, the empty state, 'Go to Connections' when no
 * data source can be a source, and 'Create a formula' opening the wizard on the new draft. The
 * server's answers are fakes that wait until the path gives them.
 */
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import { policiesFor } from '../../src/domain/roles.ts';
import { formulaListMachine, hasSourceFor } from '../../src/machines/formulaList.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import type { DataSourceListItem } from '../../src/services/integrations.ts';
import { FormulaList } from '../../src/views/formulas/AllFormulasPage.tsx';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectingFailure, named, proofWaitOf, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof formulaListMachine>;
type Listing = { formulas: FormulaView[]; sources: DataSourceListItem[] | null };

const source = (system: DataSourceListItem['system']): DataSourceListItem => ({
  id: `ds-${system}`, system, displayName: system === 'sandbox-crm' ? 'Sandbox CRM' : 'Uploads', createdOn: '', createdBy: null, modifiedOn: '', modifiedBy: null, usedByCount: 0,
});
const formula = (id: string, name: string | null, isDraft = true): FormulaView => ({
  id, name, isDraft, usesFileUpload: false, sourceDataSource: null, firstDestinationDataSource: null, sampleUploadId: null,
  status: isDraft ? 'inactive' : 'active', jobStatus: null, needsReprocess: !isDraft, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-02T00:00:00Z',
});

const LISTINGS: Record<string, Listing> = {
  two: { formulas: [formula('f1', 'Spring appeal'), formula('f2', null, false)], sources: [source('sandbox-crm')] },
  none: { formulas: [], sources: [source('sandbox-crm')] },
  'no source': { formulas: [], sources: [] },
  // a role that may not see data sources is never told to add one
  'sources not visible': { formulas: [], sources: null },
};
const DRAFT = formula('f-new', null);

const model = testModel(formulaListMachine, {
  events: (s) => {
    const snap = s as Snap;
    if (snap.matches('loading')) {
      return [
        ...Object.values(LISTINGS).map((output) => ({ type: 'xstate.done.actor.loadList', output })),
        { type: 'xstate.error.actor.loadList', error: new Error('offline') },
      ] as never;
    }
    if (snap.matches('creating')) return [{ type: 'xstate.done.actor.createDraft', output: DRAFT }, { type: 'xstate.error.actor.createDraft', error: new Error('no') }] as never;
    if (snap.matches('failed')) return [{ type: 'list.reload' }];
    // a Create button is offered only where a data source can be a source
    return hasSourceFor(snap.context.sources) ? [{ type: 'formula.create' }, { type: 'list.reload' }] : [{ type: 'list.reload' }];
  },
  serializeState: (s) => JSON.stringify([(s as Snap).value, (s as Snap).context.formulas.length, (s as Snap).context.sources?.length ?? 'not visible', !!(s as Snap).context.created, !!(s as Snap).context.error]),
});

const authLogic = setup({}).createMachine({ context: { user: { policies: policiesFor(['Formula Producer']) } } });

function renderList(machine: typeof formulaListMachine) {
  const load = fakeCall<void, Listing>('load the list');
  const create = fakeCall<void, FormulaView>('create a draft');
  const auth = createActor(authLogic).start();
  const router = createMemoryRouter([{ path: '*', element: <FormulaList title="All Formulas" logic={machine.provide({ actors: { loadList: load.logic, createDraft: create.logic } as never })} /> }], {
    initialEntries: ['/integrations-formulas'],
  });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { load, create, router, auth };
}

const view: ModelView<typeof formulaListMachine, ReturnType<typeof renderList>> = {
  render: (machine) => renderList(machine),
  stop: (r) => r.auth.stop(),
  params: (r) => ({
    states: {
      loading: async () => { await screen.findByLabelText('Loading formulas'); },
      failed: async () => { await screen.findByText('The formulas could not be loaded'); },
      ready: async (s) => {
        const { formulas, sources, created, error } = (s as Snap).context;
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
          expect(table.textContent).toContain('Spring appeal');
          expect(table.textContent).toContain('Untitled formula');
          expect(table.textContent).toContain('Needs reprocess');
        } else if (hasSourceFor(sources)) {
          await screen.findByText('No formulas yet. Create one to start moving records.');
        }
        if (created) await waitFor(() => expect(r.router.state.location.search).toBe(`?wizardFormulaId=${created.id}&wizardStep=data-sources`));
        if (error) await screen.findByText('The formula could not be created.');
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
      'list.reload': async (step) => {
        const snap = step.state as Snap;
        if (snap.matches('failed')) fireEvent.click(await screen.findByRole('button', { name: 'Try again' }));
        else {
          // the list reloads when the wizard closes: open and close it through the address
          await act(async () => { await r.router.navigate('/integrations-formulas?wizardFormulaId=f1&wizardStep=review'); });
          await act(async () => { await r.router.navigate('/integrations-formulas'); });
        }
      },
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
