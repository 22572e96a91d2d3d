/**
 * Authentication: loading until the sign-in redirect is handled, then signed in (with the current
 * user's login details) or signed out. Logout clears the user, the server's user cache and the
 * provider's session.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { AuthService } from '../services/auth.ts';
import type { AccountManagement, CurrentUser } from '../services/accountManagement.ts';

export interface AuthDeps {
  auth: AuthService;
  accounts: AccountManagement;
  subdomain: string;
  /** where the login-details call gets the organisation id */
  setOrgId(orgId: string): void;
}

export interface AuthContext {
  deps: AuthDeps;
  user: CurrentUser | null;
  error: string | null;
  tokenRefreshes: number;
}

export const authMachine = setup({
  types: {
    context: {} as AuthContext,
    input: {} as { deps: AuthDeps },
    events: {} as { type: 'login' } | { type: 'logout' } | { type: 'token.refresh' },
  },
  actors: {
    restoreSession: fromPromise(async ({ input }: { input: AuthDeps }) => {
      await input.auth.handleRedirect();
      return input.auth.isAuthenticated();
    }),
    loadUser: fromPromise(async ({ input }: { input: AuthDeps }) => {
      const orgId = await input.accounts.organizationId(input.subdomain);
      input.setOrgId(orgId);
      return input.accounts.currentUser(orgId);
    }),
    refreshToken: fromPromise(async ({ input }: { input: AuthDeps }) => { await input.auth.accessToken({ refresh: true }); }),
    redirectToLogin: fromPromise(async ({ input }: { input: AuthDeps }) => { await input.auth.login(window.location.pathname); }),
    logout: fromPromise(async ({ input }: { input: { deps: AuthDeps; userId: string | undefined } }) => {
      if (input.userId) await input.deps.accounts.deleteUserCache(input.userId).catch(() => undefined);
      await input.deps.auth.logout();
    }),
  },
  actions: {
    clearUser: assign({ user: null }),
  },
}).createMachine({
  id: 'auth',
  initial: 'loading',
  context: ({ input }) => ({ deps: input.deps, user: null, error: null, tokenRefreshes: 0 }),
  states: {
    loading: {
      invoke: {
        src: 'restoreSession',
        input: ({ context }) => context.deps,
        onDone: [
          { guard: ({ event }) => event.output, target: 'authenticated' },
          { target: 'unauthenticated' },
        ],
        onError: { target: 'unauthenticated', actions: assign({ error: ({ event }) => String((event.error as Error)?.message ?? event.error) }) },
      },
    },
    unauthenticated: {
      entry: 'clearUser',
      on: { login: 'redirecting' },
    },
    redirecting: {
      invoke: { src: 'redirectToLogin', input: ({ context }) => context.deps },
    },
    authenticated: {
      initial: 'loadingUser',
      on: { logout: '.loggingOut' },
      states: {
        loadingUser: {
          invoke: {
            src: 'loadUser',
            input: ({ context }) => context.deps,
            onDone: { target: 'ready', actions: assign({ user: ({ event }) => event.output, error: null }) },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => String((event.error as Error)?.message ?? event.error) }) },
          },
        },
        ready: { on: { 'token.refresh': 'refreshing' } },
        refreshing: {
          invoke: {
            src: 'refreshToken',
            input: ({ context }) => context.deps,
            onDone: { target: 'ready', actions: assign({ tokenRefreshes: ({ context }) => context.tokenRefreshes + 1 }) },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => String((event.error as Error)?.message ?? event.error) }) },
          },
        },
        failed: {},
        loggingOut: {
          invoke: {
            src: 'logout',
            input: ({ context }) => ({ deps: context.deps, userId: context.user?.auth0Id }),
            onDone: { target: '#auth.unauthenticated' },
            onError: { target: '#auth.unauthenticated' },
          },
        },
      },
    },
  },
});
