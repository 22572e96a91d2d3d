/**
 * Every screen of the app in one table (SPEC.md section 2, plus our own screens): its path, who may
 * open it, its title, its navigation entry, whether it sits in the app shell, and the onboarding
 * task that points to it. Route access (routes.ts), the router and its elements, the navigation,
 * the welcome page's task list and page titles are all derived from it. Query-driven dialogs
 * (the Formula Wizard) have a table of their own below.
 *
 * Adding a screen: add a row here; the views' element table (src/views/shell/screens.tsx) then
 * fails to compile until the screen has an element.
 */
import type { Action, Resource } from './roles.ts';

/** The facts of a signed-in session that access rules read. */
export interface SignedIn { loginCount: number }

/** Welcome is for users with fewer than 2 logins (SPEC.md section 9). */
export const WELCOME_LOGIN_COUNT = 2;

export interface ScreenAccess {
  /** open to everyone, signed in or not */
  public?: boolean;
  /** the policy needed, and where to go without it */
  needs?: { resource: Resource; action?: Action; otherwise: string };
  /** a further rule after the policy check: a path to go to instead, or null */
  then?: (s: SignedIn) => string | null;
  /** only in non-production builds */
  nonProductionOnly?: boolean;
  /** in non-production builds every signed-in user may open it; `needs` applies in production */
  openOutsideProduction?: boolean;
}

/** Icons are named here and drawn by the view (src/domain has no React). */
export type NavIcon = 'inbox' | 'formula' | 'plug' | 'history' | 'users' | 'flag' | 'sitemap' | 'upload' | 'eye';

export interface NavEntry {
  label: string;
  icon: NavIcon;
  /** daily work, administration, or developer tools (kept apart from daily work) */
  group: 'daily' | 'admin' | 'developer';
}

export interface OnboardingTask {
  label: string;
  detail: string;
  /** shown to users whose policies allow this resource's view (may differ from the screen's guard) */
  resource: Resource;
  /** the task's place in the list: connect, build, review, invite */
  step: number;
  /** what the tenant has that marks the task done (src/domain/api/dataQueue.ts OnboardingSchema) */
  done: 'dataSource' | 'formula' | 'reviewedRecord' | 'teammate';
  /** where the task's link leads, when not to its screen: somewhere it can be done on the first day */
  to?: string;
}

export interface ScreenDef {
  /** the path pattern: literal segments and `:param` segments */
  path: string;
  title: string;
  /** inside the app shell (header, navigation), or a bare page of its own */
  layout: 'shell' | 'bare';
  access: ScreenAccess;
  nav?: NavEntry;
  onboarding?: OnboardingTask;
}

const view = (resource: Resource, otherwise: string) => ({ resource, otherwise });

const P = {
  landing: '/landing',
  welcome: '/welcome',
  dataQueue: '/data-queue',
  activityHistory: '/activity-history',
  connections: '/connections',
  integrationsFormulas: '/integrations-formulas',
  userManagement: '/user-management',
  authErrorRole: '/auth-error/role',
} as const;

/** The bucket and review screens under /{formulaId}/ (SPEC.md section 2): all need formula view. */
const formulaScreen = (segment: string, title: string): ScreenDef => ({
  path: `/:formulaId/${segment}`,
  title,
  layout: 'shell',
  access: { needs: view('formula', P.integrationsFormulas) },
});

/**
 * The order matters where two patterns could match one path: the first row that matches wins
 * (`/activity-history/:formulaId` before the `/:formulaId/...` screens).
 */
export const SCREENS = {
  landing: { path: P.landing, title: 'Sign in', layout: 'bare', access: { public: true } },
  welcome: {
    path: P.welcome, title: 'Welcome', layout: 'shell',
    access: { then: (s) => (s.loginCount < WELCOME_LOGIN_COUNT ? null : P.dataQueue) },
  },
  dataQueue: {
    path: P.dataQueue, title: 'Data Queue', layout: 'shell',
    access: { needs: view('formula', P.integrationsFormulas), then: (s) => (s.loginCount < WELCOME_LOGIN_COUNT ? P.welcome : null) },
    nav: { label: 'Data Queue', icon: 'inbox', group: 'daily' },
    // the Data Queue opens from the second sign-in (its access above): on day one a formula's records are reached from Formulas
    onboarding: {
      label: 'Review and send records', detail: 'Open a formula from Formulas to check its new records and matches before they are sent.',
      resource: 'records', step: 3, done: 'reviewedRecord', to: P.integrationsFormulas,
    },
  },
  integrationsFormulas: {
    path: P.integrationsFormulas, title: 'All Formulas', layout: 'shell',
    access: { needs: view('formula', P.connections) },
    nav: { label: 'Formulas', icon: 'formula', group: 'daily' },
    onboarding: { label: 'Create your first formula', detail: 'Pull, map, match and route records between two systems.', resource: 'formula', step: 2, done: 'formula' },
  },
  connections: {
    path: P.connections, title: 'Connections', layout: 'shell',
    access: { needs: view('datasource', P.activityHistory) },
    nav: { label: 'Connections', icon: 'plug', group: 'daily' },
    onboarding: { label: 'Connect a data source', detail: 'Add the systems your records come from and go to.', resource: 'datasource', step: 1, done: 'dataSource' },
  },
  activityHistory: {
    path: P.activityHistory, title: 'Activity History', layout: 'shell',
    access: { needs: view('history', P.userManagement) },
    nav: { label: 'Activity History', icon: 'history', group: 'daily' },
  },
  formulaActivityHistory: {
    path: `${P.activityHistory}/:formulaId`, title: 'Activity History', layout: 'shell',
    access: { needs: view('history', P.userManagement) },
  },
  userManagement: {
    path: P.userManagement, title: 'User Management', layout: 'shell',
    access: { needs: view('usermanagement', P.authErrorRole) },
    nav: { label: 'User Management', icon: 'users', group: 'admin' },
    onboarding: { label: 'Invite your team', detail: 'Add users and give them roles.', resource: 'usermanagement', step: 4, done: 'teammate' },
  },
  featureFlags: {
    path: '/feature-flags', title: 'Feature Flags', layout: 'shell',
    access: { needs: view('flags', P.authErrorRole) },
    nav: { label: 'Feature Flags', icon: 'flag', group: 'admin' },
  },
  workflows: {
    path: '/workflows', title: 'Workflows', layout: 'shell',
    access: { needs: view('workflows', P.authErrorRole), openOutsideProduction: true },
    nav: { label: 'Workflows', icon: 'sitemap', group: 'developer' },
  },
  workflowsInspector: {
    path: '/workflows/inspector', title: 'Live inspector', layout: 'shell',
    access: { needs: view('workflows', P.authErrorRole), openOutsideProduction: true },
    nav: { label: 'Live inspector', icon: 'eye', group: 'developer' },
  },
  /** uploading a file starts a file-upload formula */
  fileUpload: {
    path: '/files/upload', title: 'Upload a file', layout: 'shell',
    access: { needs: { resource: 'formula', action: 'create', otherwise: P.integrationsFormulas } },
    nav: { label: 'Upload a file', icon: 'upload', group: 'daily' },
  },
  readyRecords: formulaScreen('ready-records', 'Ready records'),
  needsAttention: formulaScreen('needs-attention', 'Needs Attention'),
  needsAttentionReview: formulaScreen('needs-attention/v2', 'Needs Attention'),
  needsAttentionOneToOne: formulaScreen('needs-attention/one-to-one', 'One-to-one matches'),
  oneToMany: formulaScreen('one-to-many', 'One-to-many matches'),
  exception: formulaScreen('exception', 'Exceptions'),
  formulaExceptions: formulaScreen('formula-exceptions', 'Formula exceptions'),
  newRecords: formulaScreen('new-records', 'New records'),
  validationExceptions: formulaScreen('validation-exceptions/:customBucket', 'Validation exceptions'),
  relatedRecords: formulaScreen('related-records', 'Related records'),
  sentRecords: formulaScreen('sent', 'Sent records'),
  omittedRecords: formulaScreen('omitted', 'Omitted records'),
  runHistory: formulaScreen('run-history', 'Run history'),
  printFormulaReview: formulaScreen('print-formula-review', 'Formula review'),
  notFound: { path: '/not-found', title: 'Not found', layout: 'bare', access: { public: true } },
  authErrorSubdomain: { path: '/auth-error/subdomain', title: 'Unknown organisation', layout: 'bare', access: { public: true } },
  authErrorRole: { path: P.authErrorRole, title: 'No role', layout: 'bare', access: { public: true } },
  authErrorTenant: { path: '/auth-error/tenant', title: 'No tenant', layout: 'bare', access: { public: true } },
  fieldShowcase: { path: '/field-showcase', title: 'Field showcase', layout: 'bare', access: { public: true, nonProductionOnly: true } },
} as const satisfies Record<string, ScreenDef>;

export type ScreenId = keyof typeof SCREENS;

export const SCREEN_IDS = Object.keys(SCREENS) as ScreenId[];

/** Paths by screen, plus the root (which only redirects). */
export const ROUTES = {
  root: '/',
  ...(Object.fromEntries(SCREEN_IDS.map((id) => [id, SCREENS[id].path])) as { [K in ScreenId]: (typeof SCREENS)[K]['path'] }),
};

/** The screens under /{formulaId}/, as the segments after the formula id. */
export const FORMULA_SCREENS = SCREEN_IDS
  .map((id) => SCREENS[id].path)
  .filter((p) => p.startsWith('/:formulaId/'))
  .map((p) => p.slice('/:formulaId/'.length));

export function matchPattern(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  // trailing slashes leave empty segments, which go
  const have = pathname.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [i, seg] of want.entries()) {
    const got = have[i]!;
    if (seg.startsWith(':')) {
      try { params[seg.slice(1)] = decodeURIComponent(got); } catch { return null; }
    } else if (seg !== got) return null;
  }
  return params;
}

/** The screen a path opens, in table order; null for a path no screen has. */
export function findScreen(pathname: string, production: boolean): { id: ScreenId; screen: ScreenDef; params: Record<string, string> } | null {
  for (const id of SCREEN_IDS) {
    const screen: ScreenDef = SCREENS[id];
    if (screen.access.nonProductionOnly && production) continue;
    const params = matchPattern(screen.path, pathname);
    if (params) return { id, screen, params };
  }
  return null;
}

/** The navigation entries in table order, each with the policy its screen needs. */
export function navigation(): { id: ScreenId; path: string; entry: NavEntry; resource: Resource; action: Action }[] {
  return SCREEN_IDS.flatMap((id) => {
    const screen: ScreenDef = SCREENS[id];
    if (!screen.nav || !screen.access.needs) return [];
    return [{ id, path: screen.path, entry: screen.nav, resource: screen.access.needs.resource, action: screen.access.needs.action ?? 'view' }];
  });
}

/** The welcome page's onboarding tasks, in their steps' order. */
export function onboardingTasks(): (OnboardingTask & { path: string })[] {
  return SCREEN_IDS.flatMap((id) => {
    const screen: ScreenDef = SCREENS[id];
    return screen.onboarding ? [{ ...screen.onboarding, path: screen.onboarding.to ?? screen.path }] : [];
  }).sort((a, b) => a.step - b.step);
}

/**
 * Dialogs that open from the query on any screen (SPEC.md section 2): the Formula Wizard opens
 * when the query holds wizardFormulaId and wizardStep. Changing only the query never remounts the
 * screen below (src/views/shell/Root.tsx decides access by path).
 */
export interface DialogDef {
  /** the query parameters that open it, all required */
  query: readonly string[];
  title: string;
  access: { resource: Resource; action: Action };
}

export const DIALOGS = {
  formulaWizard: { query: ['wizardFormulaId', 'wizardStep'], title: 'Formula Wizard', access: { resource: 'formula', action: 'view' } },
} as const satisfies Record<string, DialogDef>;
export type DialogId = keyof typeof DIALOGS;

/** The dialog the query opens, with its parameters; null when it opens none. */
export function findDialog(search: string): { id: DialogId; params: Record<string, string> } | null {
  const query = new URLSearchParams(search);
  for (const id of Object.keys(DIALOGS) as DialogId[]) {
    const def: DialogDef = DIALOGS[id];
    if (def.query.every((k) => (query.get(k) ?? '') !== '')) return { id, params: Object.fromEntries(def.query.map((k) => [k, query.get(k)!])) };
  }
  return null;
}
