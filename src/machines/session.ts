/** What the route-access machine needs to know of the authentication machine's state. */
import type { SnapshotFrom } from 'xstate';
import type { Session } from '../domain/routes.ts';
import type { AuthErrorPage, authMachine } from './auth.ts';

export function sessionOf(snapshot: SnapshotFrom<typeof authMachine>): { session: Session | null; denied: AuthErrorPage | null } {
  if (snapshot.matches('denied')) return { session: { authenticated: false }, denied: snapshot.context.authError };
  if (snapshot.matches({ authenticated: 'ready' })) {
    const user = snapshot.context.user!;
    return { session: { authenticated: true, loginCount: user.loginCount, policies: user.policies }, denied: null };
  }
  // still a guest while the browser leaves for the sign-in page
  if (snapshot.matches('unauthenticated') || snapshot.matches('failed') || snapshot.matches('redirecting')) {
    return { session: { authenticated: false }, denied: null };
  }
  // loading, signing in, reading login details, switching tenant, logging out
  return { session: null, denied: null };
}
