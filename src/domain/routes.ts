/**
 * Route access (SPEC.md section 2): where a visit lands, decided from the screens table
 * (screens.ts), whose access rules hold every row of the specification. Read by the route-access
 * machine.
 */
import { can, type Policies } from './roles.ts';
import { findScreen, ROUTES } from './screens.ts';

export type Session =
  | { authenticated: false }
  | { authenticated: true; loginCount: number; policies: Policies };

export type Decision =
  | { kind: 'allow' }
  /** `remember`: an unauthenticated visit keeps the path it wanted, for after sign-in */
  | { kind: 'redirect'; to: string; remember?: string };

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
    return session.authenticated ? { kind: 'redirect', to: safeSavedPath(opts.savedPath) ?? ROUTES.dataQueue } : { kind: 'allow' };
  }
  const access = found.screen.access;
  if (access.public) return { kind: 'allow' };
  if (!session.authenticated) return { kind: 'redirect', to: ROUTES.landing, remember: pathname + search };
  if (access.needs && !(access.openOutsideProduction && !opts.production) && !can(session.policies, access.needs.resource, access.needs.action ?? 'view')) {
    return { kind: 'redirect', to: access.needs.otherwise };
  }
  const next = access.then?.(session) ?? null;
  return next ? { kind: 'redirect', to: next } : { kind: 'allow' };
}

/** Only a path of this app, never another origin, may come back from the cookie. */
export function safeSavedPath(path: string | null | undefined): string | null {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/landing')) return null;
  return path;
}
