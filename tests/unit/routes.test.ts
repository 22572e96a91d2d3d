import { describe, expect, it } from 'vitest';
import { decideRoute, inAppShell, redirectNotice, safeSavedPath, type RedirectReason, type Session } from '../../src/domain/routes.ts';
import { FORMULA_SCREENS, SCREEN_IDS, SCREENS, type ScreenDef, type ScreenId } from '../../src/domain/screens.ts';
import { policiesFor, RESOURCES, type Action, type Resource } from '../../src/domain/roles.ts';

const guest: Session = { authenticated: false };
const as = (roles: string[], loginCount = 5): Session => ({ authenticated: true, loginCount, policies: policiesFor(roles) });
const go = (path: string, session: Session, opts: { production?: boolean; savedPath?: string | null; search?: string } = {}) =>
  decideRoute(path, opts.search ?? '', session, { production: opts.production ?? true, savedPath: opts.savedPath ?? null });
/** a redirect because the role lacks `resource`/`action` for `screen` */
const refused = (to: string, screen: ScreenId, resource: Resource, action: Action = 'view') =>
  ({ kind: 'redirect', to, reason: { kind: 'refused', screen, resource, action } });

describe('route access, row by row of SPEC.md section 2', () => {
  it('/ redirects to landing', () => {
    expect(go('/', guest)).toEqual({ kind: 'redirect', to: '/landing' });
    expect(go('/', as(['Administrator']))).toEqual({ kind: 'redirect', to: '/landing' });
  });

  it('landing is a guest page; a signed-in user goes to the saved path, or to data-queue', () => {
    expect(go('/landing', guest)).toEqual({ kind: 'allow' });
    expect(go('/landing', as(['Administrator']))).toEqual({ kind: 'redirect', to: '/data-queue', reason: { kind: 'signedIn' } });
    expect(go('/landing', as(['Administrator']), { savedPath: '/connections?x=1' })).toEqual({ kind: 'redirect', to: '/connections?x=1' });
  });

  it('an unauthenticated visit remembers its path and goes to landing', () => {
    expect(go('/connections', guest, { search: '?tab=2' }))
      .toEqual({ kind: 'redirect', to: '/landing', remember: '/connections?tab=2', reason: { kind: 'signIn', screen: 'connections' } });
    expect(go('/abc/ready-records', guest)).toMatchObject({ to: '/landing', remember: '/abc/ready-records' });
  });

  it('welcome needs login and is only for fewer than 2 logins', () => {
    expect(go('/welcome', guest)).toMatchObject({ to: '/landing' });
    expect(go('/welcome', as(['Administrator'], 1))).toEqual({ kind: 'allow' });
    expect(go('/welcome', as(['Administrator'], 2))).toEqual({ kind: 'redirect', to: '/data-queue', reason: { kind: 'rule', screen: 'welcome' } });
  });

  it('data-queue needs formula view and redirects to welcome when the login count is under 2', () => {
    expect(go('/data-queue', as(['Administrator'], 1))).toEqual({ kind: 'redirect', to: '/welcome', reason: { kind: 'rule', screen: 'dataQueue' } });
    expect(go('/data-queue', as(['Administrator'], 2))).toEqual({ kind: 'allow' });
    expect(go('/data-queue', as(['Connection Manager']))).toEqual(refused('/integrations-formulas', 'dataQueue', 'formula'));
  });

  it('activity-history needs history view, else user-management', () => {
    for (const [p, screen] of [['/activity-history', 'activityHistory'], ['/activity-history/f-1', 'formulaActivityHistory']] as const) {
      expect(go(p, as(['View Only']))).toEqual({ kind: 'allow' });
      expect(go(p, as(['User Manager']))).toEqual(refused('/user-management', screen, 'history'));
    }
  });

  it('connections needs datasource view, else activity-history', () => {
    expect(go('/connections', as(['Connection Manager']))).toEqual({ kind: 'allow' });
    expect(go('/connections', as(['Data Processor']))).toEqual(refused('/activity-history', 'connections', 'datasource'));
  });

  it('integrations-formulas needs formula view, else connections', () => {
    expect(go('/integrations-formulas', as(['Formula Producer']))).toEqual({ kind: 'allow' });
    expect(go('/integrations-formulas', as(['Connection Manager']))).toEqual(refused('/connections', 'integrationsFormulas', 'formula'));
  });

  it('user-management needs usermanagement view, else auth-error role', () => {
    expect(go('/user-management', as(['User Manager']))).toEqual({ kind: 'allow' });
    expect(go('/user-management', as(['Power User']))).toEqual(refused('/auth-error/role', 'userManagement', 'usermanagement'));
  });

  it('every /{formulaId}/ screen needs formula view', () => {
    for (const screen of FORMULA_SCREENS) {
      const p = `/f-42/${screen.replace(':customBucket', 'duplicates')}`;
      expect(go(p, as(['Data Processor'])), p).toEqual({ kind: 'allow' });
      expect(go(p, as(['Connection Manager'])), p).toMatchObject({ kind: 'redirect', to: '/integrations-formulas', reason: { kind: 'refused', resource: 'formula' } });
    }
  });

  it('not-found and the auth-error pages need no login', () => {
    for (const p of ['/not-found', '/auth-error/subdomain', '/auth-error/role', '/auth-error/tenant']) {
      expect(go(p, guest), p).toEqual({ kind: 'allow' });
    }
  });

  it('anything else goes to not-found with the path as a query', () => {
    expect(go('/nowhere/at/all', guest, { search: '?q=1' })).toEqual({ kind: 'redirect', to: `/not-found?path=${encodeURIComponent('/nowhere/at/all?q=1')}` });
    expect(go('/f-1/unknown-bucket', as(['Administrator']))).toMatchObject({ to: expect.stringMatching(/^\/not-found\?path=/) });
  });

  it('field-showcase pages exist only in non-production builds', () => {
    expect(go('/field-showcase', guest, { production: false })).toEqual({ kind: 'allow' });
    expect(go('/field-showcase', guest, { production: true })).toMatchObject({ to: expect.stringMatching(/^\/not-found/) });
  });

  it('feature flags need flags view; the upload screen needs formula create', () => {
    expect(go('/feature-flags', as(['Administrator']))).toEqual({ kind: 'allow' });
    expect(go('/feature-flags', as(['Power User']))).toEqual(refused('/auth-error/role', 'featureFlags', 'flags'));
    expect(go('/files/upload', as(['Formula Producer']))).toEqual({ kind: 'allow' });
    expect(go('/files/upload', as(['View Only']))).toEqual(refused('/integrations-formulas', 'fileUpload', 'formula', 'create'));
  });

  it('workflows are for Administrators in production, and for every signed-in user elsewhere', () => {
    for (const [p, screen] of [['/workflows', 'workflows'], ['/workflows/inspector', 'workflowsInspector']] as const) {
      expect(go(p, as(['Administrator']))).toEqual({ kind: 'allow' });
      expect(go(p, as(['Data Processor']))).toEqual(refused('/auth-error/role', screen, 'workflows'));
      expect(go(p, as(['Data Processor']), { production: false })).toEqual({ kind: 'allow' });
      expect(go(p, guest, { production: false })).toMatchObject({ to: '/landing' });
    }
  });

  it('takes back from the cookie only a path of this app', () => {
    expect(safeSavedPath('//evil.example/x')).toBeNull();
    expect(safeSavedPath('https://evil.example')).toBeNull();
    expect(safeSavedPath('/landing')).toBeNull();
    expect(safeSavedPath('/connections')).toBe('/connections');
  });

  it('a user with no policies at all ends at the role error page whatever they ask for', () => {
    const none: Session = { authenticated: true, loginCount: 5, policies: {} };
    let path = '/data-queue';
    for (let i = 0; i < 10; i++) {
      const d = go(path, none);
      if (d.kind === 'allow') break;
      path = d.to;
    }
    expect(path).toBe('/auth-error/role');
  });
});

describe('the reason a redirect carries', () => {
  it('is the screen asked for and the policy it needs, on every refusal of every screen', () => {
    const none: Session = { authenticated: true, loginCount: 5, policies: {} };
    for (const id of SCREEN_IDS) {
      const screen: ScreenDef = SCREENS[id];
      const needs = screen.access.needs;
      if (!needs) continue;
      const path = screen.path.replace(':formulaId', 'f-1').replace(':customBucket', 'b');
      expect(go(path, none), id).toEqual(refused(needs.otherwise, id, needs.resource, needs.action ?? 'view'));
    }
  });

  it('is absent where nothing was refused: the root, an unknown path, a saved path', () => {
    expect(go('/', guest)).toEqual({ kind: 'redirect', to: '/landing' });
    expect(go('/nowhere', guest)).not.toHaveProperty('reason');
    expect(go('/landing', as(['Administrator']), { savedPath: '/connections' })).not.toHaveProperty('reason');
  });
});

describe('what a redirect tells the user', () => {
  it('names the refused screen and the permission it needs', () => {
    expect(redirectNotice({ kind: 'refused', screen: 'userManagement', resource: 'usermanagement', action: 'view' })).toEqual({
      title: 'You cannot open User Management',
      text: 'User Management needs permission to view users, which your role in this tenant does not give. An administrator can change your role.',
    });
    expect(redirectNotice({ kind: 'refused', screen: 'fileUpload', resource: 'formula', action: 'create' })?.text)
      .toMatch(/^Upload a file needs permission to create formulas,/);
  });

  it('has words for every permission and every screen', () => {
    for (const resource of RESOURCES) {
      for (const screen of SCREEN_IDS) {
        const notice = redirectNotice({ kind: 'refused', screen, resource, action: 'view' })!;
        expect(notice.title).toBe(`You cannot open ${SCREENS[screen].title}`);
        expect(notice.text).not.toMatch(/undefined/);
      }
    }
  });

  it('asks a guest to sign in for the screen, and explains the first-login rules', () => {
    expect(redirectNotice({ kind: 'signIn', screen: 'activityHistory' })?.title).toBe('Sign in to open Activity History');
    expect(redirectNotice({ kind: 'rule', screen: 'welcome' })?.title).toBe('The welcome page is for first sign-ins');
    expect(redirectNotice({ kind: 'rule', screen: 'dataQueue' })?.text).toMatch(/second sign-in/);
    expect(redirectNotice({ kind: 'rule', screen: 'connections' })?.title).toBe('Connections is not open to you yet');
  });

  it('says nothing when a signed-in user is sent on from landing, or there is no reason', () => {
    const quiet: (RedirectReason | null | undefined)[] = [{ kind: 'signedIn' }, null, undefined];
    for (const r of quiet) expect(redirectNotice(r)).toBeNull();
  });
});

describe('which screens sit in the app shell', () => {
  it('shell screens for a signed-in user, never for a guest', () => {
    expect(inAppShell('connections', true)).toBe(true);
    expect(inAppShell('connections', false)).toBe(false);
    expect(inAppShell('landing', true)).toBe(false);
    expect(inAppShell('notFound', true)).toBe(false);
  });

  it('the role page inside the shell for a signed-in user refused one screen, bare for everyone else', () => {
    expect(inAppShell('authErrorRole', true)).toBe(true);
    expect(inAppShell('authErrorRole', false)).toBe(false);
    expect(inAppShell('authErrorTenant', true)).toBe(false);
    expect(inAppShell('authErrorSubdomain', true)).toBe(false);
  });
});

describe('query-driven dialogs', () => {
  it('opens the Formula Wizard only when the query holds both wizardFormulaId and wizardStep', async () => {
    const { findDialog } = await import('../../src/domain/screens.ts');
    expect(findDialog('?wizardFormulaId=f-1&wizardStep=mapping')).toEqual({ id: 'formulaWizard', params: { wizardFormulaId: 'f-1', wizardStep: 'mapping' } });
    expect(findDialog('?wizardFormulaId=f-1')).toBeNull();
    expect(findDialog('?wizardStep=mapping')).toBeNull();
    expect(findDialog('?wizardFormulaId=&wizardStep=mapping')).toBeNull();
    expect(findDialog('')).toBeNull();
  });
});
