/**
 * Route access (SPEC.md section 2): every visit is checked against the guard table of
 * src/domain/routes.ts once the session is known. An unauthenticated visit remembers its path in
 * a cookie for a day; landing sends a signed-in user there, or to the data queue.
 *
 * A redirect keeps its reason as the notice, through the further redirects it leads to, so the
 * page the user ends on can say why they are there. The user's next visit elsewhere, or a
 * dismissal, clears it.
 */
import { assign, setup } from 'xstate';
import { decideRoute, safeSavedPath, type Decision, type RedirectReason, type Session } from '../domain/routes.ts';
import { ROUTES } from '../domain/screens.ts';
import { clearRedirectPath, readRedirectPath, saveRedirectPath } from '../services/redirectCookie.ts';
import type { AuthErrorPage } from './auth.ts';

export interface RouteAccessInput { production: boolean; pathname: string; search: string }

export interface RouteAccessContext {
  production: boolean;
  pathname: string;
  search: string;
  /** null until the authentication machine knows who is there */
  session: Session | null;
  /** set while the signed-in user has no way in */
  denied: AuthErrorPage | null;
  decision: Decision | null;
  /** why the user is where they are: the reason of the redirect that brought them, until they move on */
  notice: RedirectReason | null;
}

export type RouteAccessEvent =
  /** `redirected`: the view followed this machine's redirect there (not the user's own step) */
  | { type: 'route.enter'; pathname: string; search: string; redirected?: boolean }
  | { type: 'session.change'; session: Session | null; denied?: AuthErrorPage | null }
  | { type: 'notice.dismiss' };

function decide(context: RouteAccessContext): Decision {
  if (context.denied) {
    const page = `/auth-error/${context.denied}`;
    return context.pathname === page ? { kind: 'allow' } : { kind: 'redirect', to: page };
  }
  return decideRoute(context.pathname, context.search, context.session!, {
    production: context.production,
    savedPath: context.pathname === ROUTES.landing ? readRedirectPath() : null,
  });
}

function withEvent(context: RouteAccessContext, event: RouteAccessEvent): RouteAccessContext {
  if (event.type === 'route.enter') return { ...context, pathname: event.pathname, search: event.search };
  if (event.type === 'session.change') return { ...context, session: event.session, denied: event.denied ?? null };
  return context;
}

/**
 * The notice after an event: a redirect's arrival keeps the notice of the redirect that started
 * it (or takes the next reason when that one had none), and so does an arrival entered twice
 * (React's strict mode runs effects twice); an unchanged session keeps it; anything else, the
 * user's own step included, starts afresh with the new decision's reason.
 */
function noticeAfter(context: RouteAccessContext, event: RouteAccessEvent): RedirectReason | null {
  if (event.type === 'notice.dismiss') return null;
  const next = withEvent(context, event);
  const unknown = next.session === null && !next.denied;
  const decision = unknown ? null : decide(next);
  const reason = decision?.kind === 'redirect' ? decision.reason ?? null : null;
  if (event.type === 'route.enter') {
    const again = event.pathname === context.pathname && event.search === context.search;
    if (event.redirected && (context.decision?.kind === 'redirect' || again)) return context.notice ?? reason;
    return reason;
  }
  const sameSession = JSON.stringify(next.session) === JSON.stringify(context.session) && next.denied === context.denied;
  return sameSession ? context.notice : reason;
}

export const routeAccessMachine = setup({
  types: {
    context: {} as RouteAccessContext,
    input: {} as RouteAccessInput,
    events: {} as RouteAccessEvent,
  },
  guards: {
    isSessionUnknown: ({ context, event }) => { const c = withEvent(context, event); return c.session === null && !c.denied; },
    isAllowed: ({ context, event }) => decide(withEvent(context, event)).kind === 'allow',
  },
  actions: {
    /** before `take`: it compares the event with where the user was */
    tell: assign({ notice: ({ context, event }) => noticeAfter(context, event) }),
    dismiss: assign({ notice: null }),
    take: assign(({ context, event }) => withEvent(context, event)),
    decide: assign({ decision: ({ context }) => decide(context) }),
    forget: assign({ decision: null }),
    /** the cookie is written or spent as the decision says */
    rememberOrSpendPath: ({ context }) => {
      const d = context.decision;
      if (d?.kind !== 'redirect') return;
      if (d.remember) saveRedirectPath(d.remember);
      else if (context.pathname === ROUTES.landing && d.to === safeSavedPath(readRedirectPath())) clearRedirectPath();
    },
  },
}).createMachine({
  id: 'routeAccess',
  initial: 'waiting',
  context: ({ input }) => ({ ...input, session: null, denied: null, decision: null, notice: null }),
  on: {
    'route.enter': [
      { guard: 'isSessionUnknown', target: '.waiting', actions: ['tell', 'take', 'forget'] },
      { guard: 'isAllowed', target: '.allowed', actions: ['tell', 'take', 'decide'] },
      { target: '.redirecting', actions: ['tell', 'take', 'decide', 'rememberOrSpendPath'] },
    ],
    'session.change': [
      { guard: 'isSessionUnknown', target: '.waiting', actions: ['tell', 'take', 'forget'] },
      { guard: 'isAllowed', target: '.allowed', actions: ['tell', 'take', 'decide'] },
      { target: '.redirecting', actions: ['tell', 'take', 'decide', 'rememberOrSpendPath'] },
    ],
    'notice.dismiss': { actions: 'dismiss' },
  },
  states: {
    /** who is there is not known yet */
    waiting: {},
    allowed: {},
    /** the view navigates to decision.to, which enters the next route */
    redirecting: {},
  },
});
