/**
 * Model-based tests of User Management on the rendered screen. The user form (userFormMachine;
 * SPEC.md section 5's rules from src/domain/users.ts, and an expiry in the future): paths from
 * its graph, adding a user and editing one, each event a user action in the dialog or the answer
 * of the account-management service faked at its boundary. The list (userListMachine): loading,
 * an empty tenant, a failure and its retry, an action asked first and its outcome, and a role
 * that may see users but not change them (SPEC.md section 6).
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import type { UserListItem } from '../../src/domain/api/accountManagement.ts';
import { MESSAGES } from '../../src/domain/errors.ts';
import { policiesFor, type Role } from '../../src/domain/roles.ts';
import { GRANT_MESSAGES, USER_MESSAGES, type UserInput } from '../../src/domain/users.ts';
import { EXPIRY_NOT_FUTURE, userFormMachine, userInputOf, type UserFormEvent, type UserFormInput } from '../../src/machines/userForm.ts';
import { actionMessages, confirmationOf, REFUSED, userListMachine, type UserListInput } from '../../src/machines/userList.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { UsersPage, UsersService } from '../../src/services/users.ts';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { UserForm } from '../../src/views/users/UserForm.tsx';
import { UserManagementPage } from '../../src/views/users/UserManagementPage.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const NOW = new Date('2026-11-20T12:00:00Z');
const FOOD_BANK = { tenantId: '11111111-1111-4111-8111-111111111111', name: 'Riverside Food Bank' };
const YOUTH_ARTS = { tenantId: '22222222-2222-4222-8222-222222222222', name: 'Riverside Youth Arts' };
const TENANTS = [FOOD_BANK, YOUTH_ARTS];
const GOOD_NAME = 'Ada Lovelace';
const GOOD_EMAIL = 'ada@riverside.example';
/** today: its day has begun, so access until it has already ended */
const PAST = '2026-11-20';
const FUTURE = '2026-12-31';

const ADA: UserListItem = {
  auth0Id: 'auth0|ada', fullName: GOOD_NAME, email: GOOD_EMAIL, pendingEmail: null, roles: ['Data Processor'], accessExpiresOn: '2026-12-31T00:00:00.000Z', active: true, internal: true,
  tenants: [{ tenantId: FOOD_BANK.tenantId, name: FOOD_BANK.name, roles: ['Data Processor'], accessExpiresOn: '2026-12-31T00:00:00.000Z' }],
};
const PAGE: UsersPage = { users: [ADA], total: 1, page: 1, pageSize: 25 };
const EMPTY: UsersPage = { users: [], total: 0, page: 1, pageSize: 25 };
const EMAIL_TAKEN = new ApiError(409, { title: 'user-not-created', detail: 'The e-mail address is already in use.' }, { silent: true });

type SaveCall = { mode: 'create' | 'edit'; userId?: string; body: UserInput };
const unused = () => Promise.reject(new Error('not faked'));

/** The account-management service faked at its boundary: the list answers at once, saves wait for the test. */
function fakeService(save: FakeCall<SaveCall, UserListItem>, list: (q: string) => UsersPage = () => PAGE): UsersService {
  return {
    list: async (query) => list(query?.q ?? ''),
    get: unused, deactivate: unused, reactivate: unused, remove: unused, removeFromTenant: unused, removeFromAllTenants: unused, resetPassword: unused,
    create: (body) => save.call({ mode: 'create', body }),
    update: (userId, body) => save.call({ mode: 'edit', userId, body }),
  };
}

const authLogic = setup({}).createMachine({ context: { user: null, orgId: 'org-1' } });

function renderPage(logic: typeof userListMachine, input: Partial<UserListInput>) {
  const auth = createActor(authLogic).start();
  const full: Partial<UserListInput> = {
    policies: policiesFor(['Administrator']), activeTenantId: FOOD_BANK.tenantId, tenantName: FOOD_BANK.name, tenants: TENANTS, now: () => NOW, ...input,
  };
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <UserManagementPage logic={logic} input={full} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { auth };
}

// ------------------------------------------------------------------ the form's model

type FormSnap = SnapshotFrom<typeof userFormMachine>;
type FormEvent = UserFormEvent
  | { type: 'xstate.done.actor.saveUser'; output: UserListItem }
  | { type: 'xstate.error.actor.saveUser'; error: unknown };

const SAVE_DONE: FormEvent = { type: 'xstate.done.actor.saveUser', output: ADA };
const SAVE_REFUSED: FormEvent = { type: 'xstate.error.actor.saveUser', error: EMAIL_TAKEN };
const fb = (s: FormSnap) => s.context.memberships.find((m) => m.tenantId === FOOD_BANK.tenantId);
const roleToggle = (role: Role): FormEvent => ({ type: 'role.toggle', tenantId: FOOD_BANK.tenantId, role });

/**
 * Adding: the fields are filled in the order the form asks, each first wrongly where SPEC.md has a
 * rule for it; a save can be tried at any point.
 */
function createEvents(s: FormSnap): FormEvent[] {
  if (s.status !== 'active') return [];
  if (s.matches('saving')) return [SAVE_DONE, SAVE_REFUSED];
  const c = s.context;
  const events: FormEvent[] = [{ type: 'form.submit' }, { type: 'form.cancel' }];
  const m = fb(s);
  const roles = JSON.stringify(m?.roles ?? []);
  if (c.fullName !== GOOD_NAME) {
    if (c.fullName === '') events.push({ type: 'name.change', value: 'Ada' });
    events.push({ type: 'name.change', value: GOOD_NAME });
  } else if (c.email !== GOOD_EMAIL) {
    if (c.email === '') events.push({ type: 'email.change', value: 'ada@' });
    events.push({ type: 'email.change', value: GOOD_EMAIL });
  } else if (!m) {
    events.push({ type: 'tenant.toggle', tenantId: FOOD_BANK.tenantId });
  } else if (roles === '[]') {
    events.push({ type: 'tenant.toggle', tenantId: FOOD_BANK.tenantId }, roleToggle('View Only'), roleToggle('Data Processor'));
  } else if (roles === '["View Only"]') {
    events.push(roleToggle('Data Processor'));
  } else if (roles === '["View Only","Data Processor"]') {
    events.push(roleToggle('View Only'));
  } else if (m.accessExpiresOn !== FUTURE) {
    if (m.accessExpiresOn === '') events.push({ type: 'expiry.change', tenantId: FOOD_BANK.tenantId, value: PAST });
    events.push({ type: 'expiry.change', tenantId: FOOD_BANK.tenantId, value: FUTURE });
  }
  return events;
}

/** Editing Ada: her name made one word, then saved. */
function editEvents(s: FormSnap): FormEvent[] {
  if (s.status !== 'active') return [];
  if (s.matches('saving')) return [SAVE_DONE, SAVE_REFUSED];
  const events: FormEvent[] = [{ type: 'form.submit' }, { type: 'form.cancel' }];
  if (s.context.fullName === GOOD_NAME) events.push({ type: 'name.change', value: 'Ada' });
  else events.push({ type: 'name.change', value: GOOD_NAME });
  return events;
}

/** What the dialog shows; once it closes, only how it ended. */
const serializeForm = (s: FormSnap) => (s.status === 'done' ? JSON.stringify(s.value) : JSON.stringify([
  s.value, s.context.fullName, s.context.email, s.context.memberships, s.context.submitted, s.context.saveError,
]));
const serializeEvent = (e: FormEvent) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.title}` : v));
const service0 = {} as UsersService;
const CREATE_INPUT: UserFormInput = { mode: 'create', service: service0, tenants: TENANTS, tenantId: FOOD_BANK.tenantId, now: NOW };
const EDIT_INPUT: UserFormInput = { mode: 'edit', service: service0, tenants: TENANTS, user: ADA, now: NOW };
const createModel = testModel<typeof userFormMachine, FormEvent>(userFormMachine, { input: CREATE_INPUT, events: createEvents, serializeState: serializeForm, serializeEvent });
const editModel = testModel<typeof userFormMachine, FormEvent>(userFormMachine, { input: EDIT_INPUT, events: editEvents, serializeState: serializeForm, serializeEvent });

const dialog = () => screen.getByRole('dialog');
const field = (label: RegExp) => within(dialog()).getByLabelText(label) as HTMLInputElement;
const errorOf = (input: HTMLElement) => {
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id.endsWith('-error'));
  return ids.length ? document.getElementById(ids[0]!)?.textContent ?? null : null;
};
const rolesGroup = () => within(dialog()).getByRole('group', { name: /^Roles in Riverside Food Bank/ });

interface FormRendered { save: FakeCall<SaveCall, UserListItem> }

/** The User Management screen with the form machine under test as the list's child; the path's mode decides how the dialog opens. */
const formView: ModelView<typeof userFormMachine, FormRendered> = {
  async render(machine, path) {
    const save = fakeCall<SaveCall, UserListItem>('save a user');
    renderPage(userListMachine.provide({ actors: { userForm: machine } }), { service: fakeService(save) });
    const mode = (path.steps[0]?.state ?? path.state).context.mode;
    if (mode === 'create') fireEvent.click(await screen.findByRole('button', { name: 'Add user' }));
    else {
      fireEvent.click(await screen.findByRole('button', { name: `Actions for ${GOOD_NAME}` }));
      fireEvent.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    }
    await screen.findByRole('dialog');
    return { save };
  },
  params: ({ save }) => ({
    states: {
      editing: async (s: FormSnap) => {
        const c = s.context;
        await waitFor(() => expect(within(dialog()).getByRole('button', { name: 'Save' }).getAttribute('data-loading')).toBeNull());
        expect(within(dialog()).getByRole('form').getAttribute('aria-label')).toBe(c.mode === 'create' ? 'Add user' : `Edit ${c.fullName}`);
        expect(field(/^Full name/).value).toBe(c.fullName);
        expect(field(/^E-mail/).value).toBe(c.email);
        const m = fb(s);
        expect(field(/^Member of Riverside Food Bank/).checked).toBe(!!m);
        expect(field(/^Member of Riverside Youth Arts/).checked).toBe(false);
        // each rule's message shows exactly when the domain's rules (or the future-date check) break it, once a save was tried
        const errors = c.submitted ? c.errors : {};
        expect(errorOf(field(/^Full name/))).toBe(errors.fullName ?? null);
        expect(errorOf(field(/^E-mail/))).toBe(errors.email ?? null);
        expect(within(dialog()).queryByText(USER_MESSAGES.tenants) !== null).toBe(errors.memberships === USER_MESSAGES.tenants);
        if (m) {
          for (const role of ['View Only', 'Data Processor'] as const) {
            expect((within(rolesGroup()).getByLabelText(role) as HTMLInputElement).checked).toBe(m.roles.includes(role));
          }
          const rolesError = errors['memberships.0.roles'];
          expect(within(dialog()).queryByText(USER_MESSAGES.roles) !== null).toBe(rolesError === USER_MESSAGES.roles);
          expect(within(dialog()).queryByText(USER_MESSAGES.viewOnly) !== null).toBe(rolesError === USER_MESSAGES.viewOnly);
          const expiry = field(/^Temporary access until \(Riverside Food Bank\)/);
          expect(expiry.value).toBe(m.accessExpiresOn);
          expect(errorOf(expiry)).toBe(errors['memberships.0.accessExpiresOn'] ?? null);
        }
        expect(within(dialog()).queryByText(MESSAGES.userNotCreated)).toBeNull();
        expect(within(dialog()).queryByText(MESSAGES.userNotUpdated)).toBeNull();
      },
      saving: async (s: FormSnap) => {
        await waitFor(() => expect(within(dialog()).getByRole('button', { name: 'Save' }).getAttribute('data-loading')).toBe('true'));
        expect(field(/^Full name/).disabled).toBe(true);
        // what is sent: the form as it stands, to create or to update Ada
        expect(await save.called()).toEqual({ mode: s.context.mode, ...(s.context.mode === 'edit' ? { userId: ADA.auth0Id } : {}), body: userInputOf(s.context) });
      },
      failed: async (s: FormSnap) => {
        const alert = await within(dialog()).findByRole('alert');
        expect(alert.textContent).toContain(s.context.mode === 'create' ? MESSAGES.userNotCreated : MESSAGES.userNotUpdated);
        expect(alert.textContent).toContain(EMAIL_TAKEN.problem.detail);
        expect(field(/^Full name/).value).toBe(s.context.fullName);
      },
      saved: async (s: FormSnap) => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        await screen.findByText(`${ADA.fullName} has been ${s.context.mode === 'create' ? 'added' : 'updated'}`);
      },
      cancelled: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        expect(screen.queryByText(/has been (added|updated)/)).toBeNull();
      },
    },
    events: {
      'name.change': ({ event }) => { fireEvent.change(field(/^Full name/), { target: { value: (event as unknown as { value: string }).value } }); },
      'email.change': ({ event }) => { fireEvent.change(field(/^E-mail/), { target: { value: (event as unknown as { value: string }).value } }); },
      'tenant.toggle': () => { fireEvent.click(field(/^Member of Riverside Food Bank/)); },
      'role.toggle': ({ event }) => { fireEvent.click(within(rolesGroup()).getByLabelText((event as unknown as { role: string }).role)); },
      'expiry.change': ({ event }) => { fireEvent.change(field(/^Temporary access until \(Riverside Food Bank\)/), { target: { value: (event as unknown as { value: string }).value } }); },
      'form.submit': () => { fireEvent.click(within(dialog()).getByRole('button', { name: 'Save' })); },
      'form.cancel': () => { fireEvent.click(within(dialog()).getByRole('button', { name: 'Cancel' })); },
      'xstate.done.actor.saveUser': ({ event }) => save.answer(event),
      'xstate.error.actor.saveUser': ({ event }) => save.answer(event),
    },
  }),
};

const createPaths = createModel.getShortestPaths() as unknown as ModelPath<FormSnap>[];
const editPaths = editModel.getShortestPaths() as unknown as ModelPath<FormSnap>[];
const valueOf = (s: FormSnap) => JSON.stringify(s.value);
const nameOf = (p: ModelPath<FormSnap>) => p.steps.slice(1).map(({ event }) => {
  const { type, ...rest } = event as FormEvent;
  if (type.startsWith('xstate.')) return type.replace(/^xstate\.(done|error)\.actor\./, '$1 ');
  return [type, ...Object.values(rest).filter((x) => x !== FOOD_BANK.tenantId)].join(' ');
}).join(' → ') + ` ⇒ ${valueOf(p.state)}`;

describe('user form machine: adding a user (shortest paths on the User Management screen)', () => {
  it('reaches editing with each rule\'s message, saving, failed, saved and cancelled', () => {
    expect([...reachedStates(createPaths, valueOf)].sort()).toEqual(['"cancelled"', '"editing"', '"failed"', '"saved"', '"saving"']);
    const messages = new Set(createPaths.flatMap((p) => [...p.steps.map((st) => st.state), p.state]).flatMap((s) => (s.context.submitted ? Object.values(s.context.errors) : [])));
    for (const m of [USER_MESSAGES.fullName, USER_MESSAGES.email, USER_MESSAGES.tenants, USER_MESSAGES.roles, USER_MESSAGES.viewOnly, EXPIRY_NOT_FUTURE]) expect([...messages]).toContain(m);
  });
  it.each(named(createPaths, nameOf))('%s', async (_d, path) => runPath(path, userFormMachine, formView));
});

describe('user form machine: editing a user (shortest paths on the User Management screen)', () => {
  it('reaches editing, saving, failed, saved and cancelled', () => {
    expect([...reachedStates(editPaths, valueOf)].sort()).toEqual(['"cancelled"', '"editing"', '"failed"', '"saved"', '"saving"']);
  });
  it.each(named(editPaths, nameOf))('%s', async (_d, path) => runPath(path, userFormMachine, formView));
});

describe('user form machine: saving again after a refusal', () => {
  it('adds a Data Processor with temporary access after the e-mail was refused', async () => {
    const events: FormEvent[] = [
      { type: 'name.change', value: GOOD_NAME }, { type: 'email.change', value: GOOD_EMAIL }, roleToggle('Data Processor'),
      { type: 'expiry.change', tenantId: FOOD_BANK.tenantId, value: FUTURE }, { type: 'form.submit' }, SAVE_REFUSED, { type: 'form.submit' }, SAVE_DONE,
    ];
    const fromState = createActor(userFormMachine, { input: CREATE_INPUT }).getSnapshot();
    const [path] = createModel.getPathsFromEvents(events, { fromState });
    expect(path!.state.matches('saved')).toBe(true);
    await runPath(path as unknown as ModelPath<FormSnap>, userFormMachine, formView);
  });
});

// ------------------------------------------------------------------ the list's model

type ListSnap = SnapshotFrom<typeof userListMachine>;
const FAILED = new ApiError(409, { title: 'user-not-deleted', detail: 'Ada uploaded files: deactivate her instead.' }, { silent: true });

function listEvents(s: ListSnap) {
  if (s.matches('loading')) {
    return [{ type: 'xstate.done.actor.loadPage', output: PAGE }, { type: 'xstate.done.actor.loadPage', output: EMPTY }, { type: 'xstate.error.actor.loadPage', error: new Error('offline') }];
  }
  if (s.matches('failed')) return [{ type: 'list.reload' }];
  if (s.matches('confirming')) return [{ type: 'confirm' }, { type: 'confirm.cancel' }];
  if (s.matches('acting')) return [{ type: 'xstate.done.actor.runAction', output: undefined }, { type: 'xstate.error.actor.runAction', error: FAILED }];
  if (s.matches('loaded') && s.context.result?.users.length && !s.context.notice) {
    return [{ type: 'user.act', action: 'delete', user: ADA }, { type: 'user.act', action: 'resetPassword', user: ADA }, { type: 'user.act', action: 'deactivate', user: ADA }];
  }
  return [];
}
const serializeList = (s: ListSnap) => JSON.stringify([s.value, s.context.result?.users.length ?? null, s.context.notice?.title ?? null, s.context.notice?.text ?? null, s.context.pending?.action ?? null]);
const listInput = (policies: UserListInput['policies']): UserListInput => ({
  orgId: 'org-1', service: service0, policies, activeTenantId: FOOD_BANK.tenantId, tenantName: FOOD_BANK.name, tenants: TENANTS, now: () => NOW,
});
// a role that may view users but not change them: no role of src/domain/roles.ts is one today, so its policies are given
const VIEW_USERS = { usermanagement: ['view' as const] };
const adminListModel = testModel(userListMachine, { input: listInput(policiesFor(['Administrator'])), events: listEvents as never, serializeState: serializeList as never });
const viewerListModel = testModel(userListMachine, { input: listInput(VIEW_USERS), events: listEvents as never, serializeState: serializeList as never });

interface ListRendered { load: FakeCall<unknown, UsersPage>; action: FakeCall<{ action: string }, unknown> }

const listView: ModelView<typeof userListMachine, ListRendered> = {
  render(machine, path) {
    const load = fakeCall<unknown, UsersPage>('load users');
    const action = fakeCall<{ action: string }, unknown>('act on a user');
    const policies = (path.steps[0]?.state ?? path.state).context.policies;
    renderPage(machine.provide({ actors: { loadPage: load.logic, runAction: action.logic } as never }), { policies, service: fakeService(fakeCall('unused')) });
    return { load, action };
  },
  params: ({ load, action }) => ({
    states: {
      loading: async () => { await screen.findByRole('status', { name: 'Loading users' }); },
      failed: async () => { await screen.findByText('The users could not be loaded'); },
      loaded: async (s) => {
        const c = (s as ListSnap).context;
        await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading users' })).toBeNull());
        expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['User Management']);
        if (c.result!.users.length) {
          const table = screen.getByRole('table', { name: 'Users' });
          const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell').map((cell) => cell.textContent);
          expect(cells.slice(0, 6)).toEqual([`${GOOD_NAME}Internal`, GOOD_EMAIL, 'Data Processor', FOOD_BANK.name, 'Active', expect.stringContaining('2026')]);
        } else await screen.findByText(`${FOOD_BANK.name} has no users yet.`);
        if (c.notice) expect((await screen.findByText(c.notice.title)).textContent).toBe(c.notice.title);
        if (c.notice?.text) expect(screen.getByText(c.notice.text)).toBeTruthy();
        if (!c.notice) expect(screen.queryByRole('alert')).toBeNull();
      },
      confirming: async (s) => {
        // what will happen, and to whom, before it does
        const words = confirmationOf((s as ListSnap).context.pending!.action, ADA, FOOD_BANK.name);
        const modal = await screen.findByRole('dialog', { name: words.title });
        expect(within(modal).getByText(words.text)).toBeTruthy();
        expect(within(modal).getByRole('button', { name: words.button })).toBeTruthy();
        expect(action.calls).toHaveLength(0);
      },
      acting: async (s) => {
        expect((await action.called()).action).toBe((s as ListSnap).context.pending!.action);
      },
    },
    events: {
      'xstate.done.actor.loadPage': ({ event }) => load.answer(event),
      'xstate.error.actor.loadPage': ({ event }) => load.answer(event),
      'xstate.done.actor.runAction': ({ event }) => action.answer(event),
      'xstate.error.actor.runAction': ({ event }) => action.answer(event),
      'list.reload': () => { fireEvent.click(screen.getByRole('button', { name: 'Try again' })); },
      'user.act': async ({ event }) => {
        fireEvent.click(screen.getByRole('button', { name: `Actions for ${GOOD_NAME}` }));
        const label = { delete: 'Delete', resetPassword: 'Reset password', deactivate: 'Deactivate' }[(event as unknown as { action: 'delete' | 'resetPassword' | 'deactivate' }).action];
        await act(async () => { fireEvent.click(await screen.findByRole('menuitem', { name: label })); });
      },
      // the dialog's one button that is neither Cancel nor Close; cancelling is the Escape key
      'confirm': () => {
        const go = within(screen.getByRole('dialog')).getAllByRole('button').find((b) => !['Cancel', 'Close'].includes(b.getAttribute('aria-label') ?? b.textContent ?? ''))!;
        go.focus();
        fireEvent.click(go);
      },
      'confirm.cancel': () => { fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' }); },
    },
  }),
};

const adminPaths = adminListModel.getShortestPaths() as unknown as ModelPath<ListSnap>[];
const viewerPaths = viewerListModel.getShortestPaths() as unknown as ModelPath<ListSnap>[];
const listName = (p: ModelPath<ListSnap>) => p.steps.slice(1).map(({ event }) => {
  const e = event as { type: string; action?: string; output?: UsersPage };
  return e.type.replace(/^xstate\./, '') + (e.action ? ` ${e.action}` : '') + (e.output?.users ? ` (${e.output.users.length} users)` : '');
}).join(' → ') + ` ⇒ ${JSON.stringify(p.state.value)}`;

describe('user list machine: an administrator (shortest paths on the User Management screen)', () => {
  it('reaches loading, loaded, failed, confirming and acting, with each outcome said', () => {
    expect([...reachedStates(adminPaths, (s) => JSON.stringify(s.value))].sort()).toEqual(['"acting"', '"confirming"', '"failed"', '"loaded"', '"loading"']);
    const notices = new Set(adminPaths.map((p) => p.state.context.notice?.title));
    for (const m of [MESSAGES.userNotDeleted, MESSAGES.passwordNotReset, MESSAGES.userNotUpdated, actionMessages('resetPassword', ADA, FOOD_BANK.name).done, actionMessages('delete', ADA, FOOD_BANK.name).done, actionMessages('deactivate', ADA, FOOD_BANK.name).done]) {
      expect([...notices]).toContain(m);
    }
  });
  it.each(named(adminPaths, listName))('%s', async (_d, path) => runPath(path, userListMachine, listView));
});

describe('user list machine: a role that may view users but not edit them', () => {
  it('is told it may not, and nothing is asked of the server', () => {
    expect(viewerPaths.some((p) => p.state.context.notice?.title === REFUSED.title)).toBe(true);
    expect(viewerPaths.every((p) => ![...p.steps.map((st) => st.state), p.state].some((s) => s.matches('acting') || s.matches('confirming')))).toBe(true);
  });
  it.each(named(viewerPaths, listName))('%s', async (_d, path) => runPath(path, userListMachine, listView));
});

describe('the suite can fail', () => {
  it('finds a form whose validity guard is broken on purpose', async () => {
    // a form that never counts as valid never saves
    const saving = createPaths.filter((p) => [...p.steps.map((st) => st.state), p.state].some((s) => s.matches('saving'))).slice(0, 3);
    await expectBrokenGuardToFail(userFormMachine, 'isValid', { paths: saving, view: formView, every: true });
  });
  it('finds a form that saves whatever is entered', async () => {
    // every path where a rule's message shows fails when the form counts as valid anyway
    const refused = createPaths.filter((p) => p.state.matches('editing') && p.state.context.submitted && Object.keys(p.state.context.errors).length > 0).slice(0, 3);
    await expectBrokenGuardToFail(userFormMachine, 'isValid', { paths: refused, view: formView, holds: true, every: true });
  });
  it('finds a list that lets a viewer act', async () => {
    const refusedPaths = viewerPaths.filter((p) => p.state.context.notice?.title === REFUSED.title);
    await expectBrokenGuardToFail(userListMachine, 'mayNotAct', { paths: refusedPaths, view: listView, every: true });
  });
  it('finds a list that deactivates, resets a password or deletes without asking first', async () => {
    // one path through each confirmation
    const byAction = new Map<string, ModelPath<ListSnap>>();
    for (const p of adminPaths) {
      const asking = p.steps.map((st) => st.state).find((st) => st.matches('confirming'));
      if (asking && !byAction.has(asking.context.pending!.action)) byAction.set(asking.context.pending!.action, p);
    }
    expect([...byAction.keys()].sort()).toEqual(['deactivate', 'delete', 'resetPassword']);
    const asked = [...byAction.values()];
    await expectBrokenGuardToFail(userListMachine, 'asksFirst', { paths: asked, view: listView, every: true });
  });
});

describe('the form offers only the roles the caller may give (SPEC.md section 6)', () => {
  const AS_MANAGER = [{ ...FOOD_BANK, roles: ['User Manager', 'Data Processor'] as Role[] }];
  const renderForm = (input: UserFormInput) => {
    const actor = createActor(userFormMachine, { input }).start();
    render(<MantineProvider><UserForm actor={actor} /></MantineProvider>);
    return actor;
  };

  it('a user manager who is also a Data Processor is offered those two roles and told why', async () => {
    renderForm({ mode: 'create', service: service0, tenants: AS_MANAGER, tenantId: FOOD_BANK.tenantId, now: NOW });
    const group = await screen.findByRole('group', { name: /^Roles in Riverside Food Bank/ });
    expect(within(group).getAllByRole('checkbox').map((c) => c.getAttribute('value'))).toEqual(['Data Processor', 'User Manager']);
    expect(screen.getByText(/You can give the roles you hold here: Data Processor, User Manager\./)).toBeTruthy();
  });

  it('keeps a role the user has that the caller cannot give, and says why a change of an Administrator is refused before saving', async () => {
    const chief: UserListItem = { ...ADA, roles: ['Administrator'], tenants: [{ ...ADA.tenants[0]!, roles: ['Administrator'] }] };
    const actor = renderForm({ mode: 'edit', service: service0, tenants: AS_MANAGER, user: chief, now: NOW });
    const group = await screen.findByRole('group', { name: /^Roles in Riverside Food Bank/ });
    expect(within(group).getAllByRole('checkbox').map((c) => c.getAttribute('value'))).toEqual(['Administrator', 'Data Processor', 'User Manager']);
    fireEvent.click(within(group).getByRole('checkbox', { name: 'Administrator' }));
    fireEvent.click(within(group).getByRole('checkbox', { name: 'Data Processor' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(`${FOOD_BANK.name}: ${GRANT_MESSAGES.administrator}`)).toBeTruthy();
    expect(actor.getSnapshot().matches('editing')).toBe(true);
  });

  it('says a role the caller does not hold cannot be given', () => {
    const actor = createActor(userFormMachine, { input: { mode: 'create', service: service0, tenants: AS_MANAGER, tenantId: FOOD_BANK.tenantId, now: NOW } }).start();
    for (const e of [{ type: 'name.change', value: GOOD_NAME }, { type: 'email.change', value: GOOD_EMAIL }, roleToggle('Power User'), { type: 'form.submit' }] as UserFormEvent[]) actor.send(e);
    expect(actor.getSnapshot().context.errors['memberships.0.roles']).toBe(`${FOOD_BANK.name}: ${GRANT_MESSAGES.role('Power User')}`);
  });
});
