/** The path an unauthenticated visit wanted, kept in a cookie for a day (SPEC.md section 2). */
import { REDIRECT_COOKIE, REDIRECT_COOKIE_MAX_AGE_SECONDS } from '../domain/routes.ts';

export function saveRedirectPath(path: string): void {
  document.cookie = `${REDIRECT_COOKIE}=${encodeURIComponent(path)}; Max-Age=${REDIRECT_COOKIE_MAX_AGE_SECONDS}; Path=/; SameSite=Lax`;
}

export function readRedirectPath(): string | null {
  const pair = document.cookie.split('; ').find((c) => c.startsWith(`${REDIRECT_COOKIE}=`));
  return pair ? decodeURIComponent(pair.slice(REDIRECT_COOKIE.length + 1)) : null;
}

export function clearRedirectPath(): void {
  document.cookie = `${REDIRECT_COOKIE}=; Max-Age=0; Path=/; SameSite=Lax`;
}
