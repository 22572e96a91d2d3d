import { describe, expect, it } from 'vitest';
import { decideRoute, safeSavedPath, type Session } from '../../src/domain/routes.ts';
import { FORMULA_SCREENS } from '../../src/domain/screens.ts';
import { policiesFor } from '../../src/domain/roles.ts';

const guest: Session = { authenticated: false };
const as = (roles: string[], loginCount = 5): Session => ({ authenticated: true, loginCount, policies: policiesFor(roles) });
const go = (path: string, session: Session, opts: { production?: boolean; savedPath?: string | null; search?: string } = {}) =>
  decideRoute(path, opts.search ?? '', session, { production: opts.production ?? true, savedPath: opts.savedPath ?? null });

describe('route access, row by row of SPEC.md section 2', () => {
  it('/ redirects to landing', () => {
    expect(go('/', guest)).toEqual({ kind: 'redirect', to: '/landing' });
    expect(go('/', as(['Administrator']))).toEqual({ kind: 'redirect', to: '/landing' });
  });

  it('landing is a guest page; a signed-in user goes to the saved path, or to data-queue', () => {
    expect(go('/landing', guest)).toEqual({ kind: 'allow' });
    expect(go('/landing', as(['Administrator']))).toEqual({ kind: 'redirect', to: '/data-queue' });
    expect(go('/landing', as(['Administrator']), { savedPath: '/connections?x=1' })).toEqual({ kind: 'redirect', to: '/connections?x=1' });
  });

  it('an unauthenticated visit remembers its path and goes to landing', () => {
    expect(go('/connections', guest, { search: '?tab=2' })).toEqual({ kind: 'redirect', to: '/landing', remember: '/connections?tab=2' });
    expect(go('/abc/ready-records', guest)).toMatchObject({ to: '/landing', remember: '/abc/ready-records' });
  });

  it('welcome needs login and is only for fewer than 2 logins', () => {
    expect(go('/welcome', guest)).toMatchObject({ to: '/landing' });
    expect(go('/welcome', as(['Administrator'], 1))).toEqual({ kind: 'allow' });
    expect(go('/welcome', as(['Administrator'], 2))).toEqual({ kind: 'redirect', to: '/data-queue' });
  });

  it('data-queue needs formula view and redirects to welcome when the login count is under 2', () => {
    expect(go('/data-queue', as(['Administrator'], 1))).toEqual({ kind: 'redirect', to: '/welcome' });
    expect(go('/data-queue', as(['Administrator'], 2))).toEqual({ kind: 'allow' });
    expect(go('/data-queue', as(['Connection Manager']))).toEqual({ kind: 'redirect', to: '/integrations-formulas' });
  });

  it('activity-history needs history view, else user-management', () => {
    for (const p of ['/activity-history', '/activity-history/f-1']) {
      expect(go(p, as(['View Only']))).toEqual({ kind: 'allow' });
      expect(go(p, as(['User Manager']))).toEqual({ kind: 'redirect', to: '/user-management' });
    }
  });

  it('connections needs datasource view, else activity-history', () => {
    expect(go('/connections', as(['Connection Manager']))).toEqual({ kind: 'allow' });
    expect(go('/connections', as(['Data Processor']))).toEqual({ kind: 'redirect', to: '/activity-history' });
  });

  it('integrations-formulas needs formula view, else connections', () => {
    expect(go('/integrations-formulas', as(['Formula Producer']))).toEqual({ kind: 'allow' });
    expect(go('/integrations-formulas', as(['Connection Manager']))).toEqual({ kind: 'redirect', to: '/connections' });
  });

  it('user-management needs usermanagement view, else auth-error role', () => {
    expect(go('/user-management', as(['User Manager']))).toEqual({ kind: 'allow' });
    expect(go('/user-management', as(['Power User']))).toEqual({ kind: 'redirect', to: '/auth-error/role' });
  });

  it('every /{formulaId}/ screen needs formula view', () => {
    for (const screen of FORMULA_SCREENS) {
      const p = `/f-42/${screen.replace(':customBucket', 'duplicates')}`;
      expect(go(p, as(['Data Processor'])), p).toEqual({ kind: 'allow' });
      expect(go(p, as(['Connection Manager'])), p).toEqual({ kind: 'redirect', to: '/integrations-formulas' });
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
    expect(go('/feature-flags', as(['Power User']))).toEqual({ kind: 'redirect', to: '/auth-error/role' });
    expect(go('/files/upload', as(['Formula Producer']))).toEqual({ kind: 'allow' });
    expect(go('/files/upload', as(['View Only']))).toEqual({ kind: 'redirect', to: '/integrations-formulas' });
  });

  it('workflows are for Administrators in production, and for every signed-in user elsewhere', () => {
    for (const p of ['/workflows', '/workflows/inspector']) {
      expect(go(p, as(['Administrator']))).toEqual({ kind: 'allow' });
      expect(go(p, as(['Data Processor']))).toEqual({ kind: 'redirect', to: '/auth-error/role' });
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
