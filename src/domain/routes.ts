/**
 * Route access (SPEC.md section 2): one guard table, read by the route-access machine. Every row
 * of the specification is a row here.
 */
import { can, type Action, type Policies, type Resource } from './roles.ts';

export type Session =
  | { authenticated: false }
  | { authenticated: true; loginCount: number; policies: Policies };

export type Decision =
  | { kind: 'allow' }
  /** `remember`: an unauthenticated visit keeps the path it wanted, for after sign-in */
  | { kind: 'redirect'; to: string; remember?: string };

export const ROUTES = {
  root: '/',
  landing: '/landing',
  welcome: '/welcome',
  dataQueue: '/data-queue',
  activityHistory: '/activity-history',
  connections: '/connections',
  integrationsFormulas: '/integrations-formulas',
  userManagement: '/user-management',
  notFound: '/not-found',
  authErrorSubdomain: '/auth-error/subdomain',
  authErrorRole: '/auth-error/role',
  authErrorTenant: '/auth-error/tenant',
  fieldShowcase: '/field-showcase',
  fileUpload: '/files/upload',
  featureFlags: '/feature-flags',
  workflows: '/workflows',
  workflowsInspector: '/workflows/inspector',
} as const;

/** Welcome is for users with fewer than 2 logins (SPEC.md section 9). */
export const WELCOME_LOGIN_COUNT = 2;
export const REDIRECT_COOKIE = 'tributary_redirect';
export const REDIRECT_COOKIE_MAX_AGE_SECONDS = 24 * 60 * 60;

/** The bucket and review screens under /{formulaId}/, all needing formula view. */
export const FORMULA_SCREENS = [
  'ready-records', 'needs-attention', 'needs-attention/v2', 'needs-attention/one-to-one', 'one-to-many', 'exception',
  'formula-exceptions', 'new-records', 'validation-exceptions/:customBucket', 'related-records', 'print-formula-review',
] as const;

interface Guard {
  /** path pattern: literal segments, `:param` segments */
  pattern: string;
  public?: boolean;
  /** the policy needed, and where to go without it */
  needs?: { resource: Resource; action?: Action; otherwise: string };
  /** extra rule after the policy check */
  then?: (s: Extract<Session, { authenticated: true }>) => string | null;
  nonProductionOnly?: boolean;
  /** in non-production builds every signed-in user may open it; `needs` applies in production */
  openOutsideProduction?: boolean;
}

const view = (resource: Resource, otherwise: string) => ({ resource, otherwise });

export const GUARDS: Guard[] = [
  { pattern: ROUTES.landing, public: true },
  { pattern: ROUTES.welcome, then: (s) => (s.loginCount < WELCOME_LOGIN_COUNT ? null : ROUTES.dataQueue) },
  {
    pattern: ROUTES.dataQueue,
    needs: view('formula', ROUTES.integrationsFormulas),
    then: (s) => (s.loginCount < WELCOME_LOGIN_COUNT ? ROUTES.welcome : null),
  },
  { pattern: ROUTES.activityHistory, needs: view('history', ROUTES.userManagement) },
  { pattern: `${ROUTES.activityHistory}/:formulaId`, needs: view('history', ROUTES.userManagement) },
  { pattern: ROUTES.connections, needs: view('datasource', ROUTES.activityHistory) },
  { pattern: ROUTES.integrationsFormulas, needs: view('formula', ROUTES.connections) },
  { pattern: ROUTES.userManagement, needs: view('usermanagement', ROUTES.authErrorRole) },
  { pattern: ROUTES.featureFlags, needs: view('flags', ROUTES.authErrorRole) },
  { pattern: ROUTES.workflows, needs: view('workflows', ROUTES.authErrorRole), openOutsideProduction: true },
  { pattern: ROUTES.workflowsInspector, needs: view('workflows', ROUTES.authErrorRole), openOutsideProduction: true },
  /** uploading a file starts a file-upload formula */
  { pattern: ROUTES.fileUpload, needs: { resource: 'formula', action: 'create', otherwise: ROUTES.integrationsFormulas } },
  ...FORMULA_SCREENS.map((screen) => ({ pattern: `/:formulaId/${screen}`, needs: view('formula', ROUTES.integrationsFormulas) })),
  { pattern: ROUTES.notFound, public: true },
  { pattern: ROUTES.authErrorSubdomain, public: true },
  { pattern: ROUTES.authErrorRole, public: true },
  { pattern: ROUTES.authErrorTenant, public: true },
  { pattern: ROUTES.fieldShowcase, public: true, nonProductionOnly: true },
];

export function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [i, seg] of want.entries()) {
    const got = have[i]!;
    if (seg.startsWith(':')) params[seg.slice(1)] = decodeURIComponent(got);
    else if (seg !== got) return null;
  }
  return params;
}

export function findGuard(pathname: string, production: boolean): Guard | undefined {
  return GUARDS.find((g) => (!g.nonProductionOnly || !production) && matchPattern(g.pattern, pathname) !== null);
}

/**
 * Where a visit lands. `savedPath` is the path an unauthenticated visit remembered; landing sends
 * an authenticated user there, or to the data queue.
 */
export function decideRoute(pathname: string, search: string, session: Session, opts: { production: boolean; savedPath?: string | null }): Decision {
  if (pathname === ROUTES.root) return { kind: 'redirect', to: ROUTES.landing };
  const guard = findGuard(pathname, opts.production);
  if (!guard) return { kind: 'redirect', to: `${ROUTES.notFound}?path=${encodeURIComponent(pathname + search)}` };
  if (pathname === ROUTES.landing) {
    return session.authenticated ? { kind: 'redirect', to: safeSavedPath(opts.savedPath) ?? ROUTES.dataQueue } : { kind: 'allow' };
  }
  if (guard.public) return { kind: 'allow' };
  if (!session.authenticated) return { kind: 'redirect', to: ROUTES.landing, remember: pathname + search };
  if (guard.needs && !(guard.openOutsideProduction && !opts.production) && !can(session.policies, guard.needs.resource, guard.needs.action ?? 'view')) return { kind: 'redirect', to: guard.needs.otherwise };
  const next = guard.then?.(session) ?? null;
  return next ? { kind: 'redirect', to: next } : { kind: 'allow' };
}

/** Only a path of this app, never another origin, may come back from the cookie. */
export function safeSavedPath(path: string | null | undefined): string | null {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/landing')) return null;
  return path;
}
