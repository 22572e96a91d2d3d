/**
 * Route access (SPEC.md section 2): where a visit lands, decided from the screens table
 * (screens.ts), whose access rules hold every row of the specification. Read by the route-access
 * machine.
 */
import { can, type Action, type Policies, type Resource } from './roles.ts';
import { findScreen, ROUTES, SCREENS, type ScreenDef, type ScreenId } from './screens.ts';

export type Session =
  | { authenticated: false }
  | { authenticated: true; loginCount: number; policies: Policies };

/** Why a visit was sent elsewhere, so the page it lands on can say so. */
export type RedirectReason =
  /** the screen needs a policy the user's role in this tenant does not give */
  | { kind: 'refused'; screen: ScreenId; resource: Resource; action: Action }
  /** the screen needs a signed-in user */
  | { kind: 'signIn'; screen: ScreenId }
  /** the screen's further rule sent the user on (the welcome page and first logins) */
  | { kind: 'rule'; screen: ScreenId }
  /** landing is a guest page: a signed-in user goes to their start, which needs no explaining */
  | { kind: 'signedIn' };

export type Decision =
  | { kind: 'allow' }
  /** `remember`: an unauthenticated visit keeps the path it wanted, for after sign-in */
  | { kind: 'redirect'; to: string; remember?: string; reason?: RedirectReason };

export const REDIRECT_COOKIE = 'tributary_redirect';
export const REDIRECT_COOKIE_MAX_AGE_SECONDS = 24 * 60 * 60;

/**
 * Where a visit lands. `savedPath` is the path an unauthenticated visit remembered; landing sends
 * an authenticated user there, or to the data queue.
 */
export function decideRoute(pathname: string, search: string, session: Session, opts: { production: boolean; savedPath?: string | null }): Decision {
  if (pathname === ROUTES.root) return { kind: 'redirect', to: ROUTES.landing };
  const found = findScreen(pathname, opts.production);
  if (!found) return { kind: 'redirect', to: `${ROUTES.notFound}?path=${encodeURIComponent(pathname + search)}` };
  if (pathname === ROUTES.landing) {
    if (!session.authenticated) return { kind: 'allow' };
    // the saved path is where the user meant to go: what happens there is told, not this step
    const saved = safeSavedPath(opts.savedPath);
    return saved ? { kind: 'redirect', to: saved } : { kind: 'redirect', to: ROUTES.dataQueue, reason: { kind: 'signedIn' } };
  }
  const { id: screen, screen: { access } } = found;
  if (access.public) return { kind: 'allow' };
  if (!session.authenticated) return { kind: 'redirect', to: ROUTES.landing, remember: pathname + search, reason: { kind: 'signIn', screen } };
  const needs = access.needs;
  if (needs && !(access.openOutsideProduction && !opts.production) && !can(session.policies, needs.resource, needs.action ?? 'view')) {
    return { kind: 'redirect', to: needs.otherwise, reason: { kind: 'refused', screen, resource: needs.resource, action: needs.action ?? 'view' } };
  }
  const next = access.then?.(session) ?? null;
  return next ? { kind: 'redirect', to: next, reason: { kind: 'rule', screen } } : { kind: 'allow' };
}

/** What each policy lets a person do, in words a reader of a refusal understands. */
const PERMISSION_NOUNS: Record<Resource, string> = {
  formula: 'formulas',
  datasource: 'data sources',
  records: 'records',
  history: 'activity history',
  usermanagement: 'users',
  flags: 'feature flags',
  workflows: 'the developer tools',
};

/** The few further rules of the screens table, explained. */
const RULE_NOTICES: Partial<Record<ScreenId, RedirectNotice>> = {
  welcome: { title: 'The welcome page is for first sign-ins', text: 'You have signed in before, so Tributary opened your usual start page instead.' },
  dataQueue: { title: 'Start here first', text: 'The Data Queue opens from your second sign-in. Until then, the welcome page shows how to get started.' },
};

export interface RedirectNotice { title: string; text: string }

/** What to tell a user about a redirect; null when there is nothing worth saying. */
export function redirectNotice(reason: RedirectReason | null | undefined): RedirectNotice | null {
  if (!reason || reason.kind === 'signedIn') return null;
  const title = SCREENS[reason.screen].title;
  switch (reason.kind) {
    case 'refused':
      return {
        title: `You cannot open ${title}`,
        text: `${title} needs permission to ${reason.action} ${PERMISSION_NOUNS[reason.resource]}, which your role in this tenant does not give. `
          + 'An administrator can change your role.',
      };
    case 'signIn':
      return { title: `Sign in to open ${title}`, text: `You will be taken to ${title} once you have signed in.` };
    case 'rule':
      return RULE_NOTICES[reason.screen] ?? { title: `${title} is not open to you yet`, text: 'Tributary opened another page instead.' };
  }
}

/** Only a path of this app, never another origin, may come back from the cookie. */
export function safeSavedPath(path: string | null | undefined): string | null {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/landing')) return null;
  return path;
}

/**
 * Whether a screen sits in the app shell for this visitor. The role page is bare for a user with
 * no role at all, who has no shell to be in, and inside the shell for a signed-in user refused one
 * screen, who keeps their navigation and their session.
 */
export function inAppShell(screen: ScreenId, signedIn: boolean): boolean {
  if (!signedIn) return false;
  const def: ScreenDef = SCREENS[screen];
  return def.layout === 'shell' || screen === 'authErrorRole';
}
