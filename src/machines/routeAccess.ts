/**
 * Route access (SPEC.md section 2): every visit is checked against the guard table of
 * src/domain/routes.ts once the session is known. An unauthenticated visit remembers its path in
 * a cookie for a day; landing sends a signed-in user there, or to the data queue.
 */
import { assign, setup } from 'xstate';
import { decideRoute, safeSavedPath, type Decision, type Session } from '../domain/routes.ts';
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
}

export type RouteAccessEvent =
  | { type: 'route.enter'; pathname: string; search: string }
  | { type: 'session.change'; session: Session | null; denied?: AuthErrorPage | null };

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

const withEvent = (context: RouteAccessContext, event: RouteAccessEvent): RouteAccessContext =>
  event.type === 'route.enter'
    ? { ...context, pathname: event.pathname, search: event.search }
    : { ...context, session: event.session, denied: event.denied ?? null };

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
  context: ({ input }) => ({ ...input, session: null, denied: null, decision: null }),
  on: {
    'route.enter': [
      { guard: 'isSessionUnknown', target: '.waiting', actions: ['take', 'forget'] },
      { guard: 'isAllowed', target: '.allowed', actions: ['take', 'decide'] },
      { target: '.redirecting', actions: ['take', 'decide', 'rememberOrSpendPath'] },
    ],
    'session.change': [
      { guard: 'isSessionUnknown', target: '.waiting', actions: ['take', 'forget'] },
      { guard: 'isAllowed', target: '.allowed', actions: ['take', 'decide'] },
      { target: '.redirecting', actions: ['take', 'decide', 'rememberOrSpendPath'] },
    ],
  },
  states: {
    /** who is there is not known yet */
    waiting: {},
    allowed: {},
    /** the view navigates to decision.to, which enters the next route */
    redirecting: {},
  },
});
