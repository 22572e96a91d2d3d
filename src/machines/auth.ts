/**
 * Authentication (SPEC.md sections 2, 4 and 8): loading until the SDK has handled the sign-in
 * redirect; then the login-details flow (subdomain -> organisation id -> current user); signed in,
 * signed out, an identity error with its message, or a permission error page. Logout clears the
 * user, the server's user cache and the provider's session. A request refused because the account
 * was deactivated (the shell passes it on as `identity.error`) ends the session here and says so.
 */
import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { ENDS_LOCAL_SESSION, IDENTITY_ERRORS, identityErrorKind, isAccountDeactivated, type IdentityErrorKind } from '../domain/identity.ts';
import type { AccountManagement, CurrentUser } from '../services/accountManagement.ts';
import type { AuthService } from '../services/auth.ts';
import { ApiError, onApiError, setIdentitySource } from '../services/gateway.ts';

export type AuthErrorPage = 'subdomain' | 'tenant' | 'role';

/** The identity SDK's state as the shell hands it to this machine's service (src/services/auth.ts). */
export type { AuthSdkState } from '../services/auth.ts';

export interface AuthInput {
  auth: AuthService;
  accounts: AccountManagement;
  subdomain: string;
}

export interface AuthContext extends AuthInput {
  orgId: string | null;
  user: CurrentUser | null;
  identityError: { kind: IdentityErrorKind; message: string } | null;
  authError: AuthErrorPage | null;
}

export type AuthEvent =
  | { type: 'sdk.ready'; isAuthenticated: boolean; error?: unknown }
  | { type: 'login' }
  | { type: 'logout' }
  | { type: 'tenant.switch'; tenantId: string }
  | { type: 'identity.error'; error: unknown }
  | { type: 'error.dismiss' }
  | { type: 'retry' };

const statusOf = (error: unknown) => (error instanceof ApiError ? error.status : 0);
/** no answer at all (offline, or the request was cut off by leaving the page): not a reason to log out */
const isUnanswered = (error: unknown) => !(error instanceof ApiError) || error.status === 0;
const identityError = (error: unknown) => {
  const kind = identityErrorKind(error);
  return { kind, message: IDENTITY_ERRORS[kind] };
};

export const authMachine = setup({
  types: {
    context: {} as AuthContext,
    input: {} as AuthInput,
    events: {} as AuthEvent,
  },
  actors: {
    findOrganization: fromPromise(async ({ input }: { input: AuthContext }) =>
      input.accounts.organizationId(input.subdomain, { silent: true })),
    loadUser: fromPromise(async ({ input }: { input: AuthContext }) =>
      input.accounts.currentUser(input.orgId!, { silent: true })),
    switchTenant: fromPromise(async ({ input }: { input: { accounts: AccountManagement; tenantId: string } }) => {
      await input.accounts.setActiveTenant(input.tenantId);
    }),
    redirectToLogin: fromPromise(async ({ input }: { input: AuthContext }) => input.auth.login()),
    logout: fromPromise(async ({ input }: { input: AuthContext }) => {
      const userId = input.user?.auth0Id ?? input.auth.user()?.sub;
      if (userId && input.orgId) await input.accounts.deleteUserCache(userId, { silent: true }).catch(() => undefined);
      setIdentitySource(null);
      await input.auth.logout();
    }),
    /** any request of the session refused because the account was deactivated */
    watchDeactivation: fromCallback<AuthEvent>(({ sendBack }) => onApiError((error) => {
      if (isAccountDeactivated(error)) sendBack({ type: 'identity.error', error });
    })),
    forgetLocalSession: fromPromise(async ({ input }: { input: AuthContext }) => {
      setIdentitySource(null);
      await input.auth.logoutLocally();
    }),
  },
  guards: {
    sdkHasError: ({ event }) => event.type === 'sdk.ready' && event.error != null,
    isSignedIn: ({ event }) => event.type === 'sdk.ready' && event.isAuthenticated,
    isUnknownSubdomain: ({ event }) => statusOf((event as { error?: unknown }).error) === 404,
    hasNoTenant: ({ event }) => statusOf((event as { error?: unknown }).error) === 404,
    hasNoRole: ({ event }) => statusOf((event as { error?: unknown }).error) === 403,
    isUnanswered: ({ event }) => isUnanswered((event as { error?: unknown }).error),
    isDeactivated: ({ event }) => isAccountDeactivated((event as { error?: unknown }).error),
    endsLocalSession: ({ event }) => event.type === 'identity.error' && ENDS_LOCAL_SESSION.includes(identityErrorKind(event.error)),
  },
  actions: {
    clearUser: assign({ user: null, orgId: null }),
    /** a 404 or 403 from the login-details call clears the tenant */
    clearTenant: assign({ user: ({ context }) => (context.user ? { ...context.user, activeTenantId: null } : null) }),
    recordSdkError: assign({ identityError: ({ event }) => identityError((event as { error?: unknown }).error) }),
    recordIdentityError: assign({ identityError: ({ event }) => identityError((event as { error?: unknown }).error) }),
    clearIdentityError: assign({ identityError: null }),
    /** every authenticated request carries the token and the identity headers of this session */
    provideIdentity: ({ self }) => {
      setIdentitySource(async () => {
        const { context } = self.getSnapshot();
        let token: string;
        try {
          token = await context.auth.accessToken();
        } catch (error) {
          self.send({ type: 'identity.error', error });
          throw error;
        }
        const user = context.auth.user();
        return {
          token,
          orgId: context.orgId ?? '',
          clientId: context.auth.clientId,
          userId: user?.sub ?? '',
          userEmail: user?.email ?? '',
          tenantId: context.user?.activeTenantId ?? null,
        };
      });
    },
  },
}).createMachine({
  id: 'auth',
  initial: 'loading',
  context: ({ input }) => ({ ...input, orgId: null, user: null, identityError: null, authError: null }),
  states: {
    loading: {
      on: {
        'sdk.ready': [
          { guard: 'sdkHasError', target: 'failed', actions: 'recordSdkError' },
          { guard: 'isSignedIn', target: 'authenticated' },
          { target: 'unauthenticated' },
        ],
      },
    },
    unauthenticated: {
      entry: 'clearUser',
      on: { login: { target: 'redirecting', actions: 'clearIdentityError' }, 'error.dismiss': { actions: 'clearIdentityError' } },
    },
    redirecting: {
      invoke: { id: 'redirectToLogin', src: 'redirectToLogin', input: ({ context }) => context, onError: { target: 'failed', actions: 'recordIdentityError' } },
    },
    /** an identity error, with its message; the user can sign in again */
    failed: {
      entry: 'clearUser',
      on: { login: { target: 'redirecting', actions: 'clearIdentityError' }, 'error.dismiss': { target: 'unauthenticated', actions: 'clearIdentityError' } },
    },
    authenticated: {
      initial: 'findingOrganization',
      entry: 'provideIdentity',
      invoke: { id: 'watchDeactivation', src: 'watchDeactivation' },
      on: {
        logout: '#auth.loggingOut',
        'identity.error': [
          { guard: 'endsLocalSession', target: '#auth.endingSession', actions: 'recordIdentityError' },
          { target: '#auth.failed', actions: 'recordIdentityError' },
        ],
      },
      states: {
        findingOrganization: {
          invoke: {
            id: 'findOrganization',
            src: 'findOrganization',
            input: ({ context }) => context,
            onDone: { target: 'loadingUser', actions: assign({ orgId: ({ event }) => event.output }) },
            onError: [
              { guard: 'isUnknownSubdomain', target: '#auth.denied.subdomain' },
              { guard: 'isUnanswered', target: 'unreachable' },
              { target: '#auth.loggingOut' },
            ],
          },
        },
        loadingUser: {
          invoke: {
            id: 'loadUser',
            src: 'loadUser',
            input: ({ context }) => context,
            onDone: { target: 'ready', actions: assign({ user: ({ event }) => event.output }) },
            onError: [
              // deactivated while still signed in: the session ends here, and the sign-in page says why
              { guard: 'isDeactivated', target: '#auth.endingSession', actions: 'recordIdentityError' },
              { guard: 'hasNoTenant', target: '#auth.denied.tenant' },
              { guard: 'hasNoRole', target: '#auth.denied.role' },
              { guard: 'isUnanswered', target: 'unreachable' },
              { target: '#auth.loggingOut' },
            ],
          },
        },
        ready: {
          on: { 'tenant.switch': 'switchingTenant' },
        },
        /** the server did not answer the login-details flow; the user may try again */
        unreachable: {
          on: { retry: 'findingOrganization' },
        },
        switchingTenant: {
          invoke: {
            id: 'switchTenant',
            src: 'switchTenant',
            input: ({ context, event }) => ({ accounts: context.accounts, tenantId: (event as { tenantId: string }).tenantId }),
            onDone: 'loadingUser',
            onError: 'ready',
          },
        },
      },
    },
    /** signed in, but with no way in: a permission error page asks the user to contact the admin */
    denied: {
      initial: 'role',
      entry: 'clearTenant',
      on: { logout: '#auth.loggingOut' },
      states: {
        subdomain: { entry: assign({ authError: 'subdomain' }) },
        tenant: { entry: assign({ authError: 'tenant' }) },
        role: { entry: assign({ authError: 'role' }) },
      },
      exit: assign({ authError: null }),
    },
    loggingOut: {
      invoke: { id: 'logout', src: 'logout', input: ({ context }) => context, onDone: 'unauthenticated', onError: 'unauthenticated' },
    },
    /** login_required or a missing refresh token: forget the session here, then sign in again */
    endingSession: {
      invoke: { id: 'forgetLocalSession', src: 'forgetLocalSession', input: ({ context }) => context, onDone: 'failed', onError: 'failed' },
    },
  },
});
