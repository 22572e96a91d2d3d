/** Identity constants (SPEC.md section 9). */
export const IDENTITY = {
  leewaySeconds: 60,
  httpTimeoutSeconds: 10,
  authorizeTimeoutSeconds: 60,
  popup: { width: 400, height: 600 },
  /** cache entries expire this long before the token does */
  cacheExpiryMarginSeconds: 60,
  scope: 'openid profile email offline_access',
} as const;

export interface AppConfig {
  auth: { domain: string; clientId: string; audience: string };
  defaultSubdomain: string;
  production: boolean;
}

/** What a deactivated user is told: at sign-in, and by the app when a session they still hold is refused. */
export const ACCOUNT_DEACTIVATED = 'Your account has been deactivated. Please contact your administrator.';
/** the problem code of a request refused because the account was deactivated (server/http/auth.ts) */
export const ACCOUNT_DEACTIVATED_CODE = 'account-deactivated';

/** Whether an error is the refusal of a deactivated account: its problem+json carries that code. */
export const isAccountDeactivated = (err: unknown): boolean =>
  (err as { problem?: { code?: unknown } } | null)?.problem?.code === ACCOUNT_DEACTIVATED_CODE;

/** The identity errors of SPEC.md section 8, each with what the user is told. */
export const IDENTITY_ERRORS = {
  'account-deactivated': ACCOUNT_DEACTIVATED,
  'invalid-state': 'Invalid state: the sign-in could not be completed. Please sign in again.',
  timeout: 'The sign-in service did not answer in time. Please try again.',
  'popup-closed': 'The sign-in window was closed before signing in finished.',
  'login-required': 'Your session has ended. Please sign in again.',
  'missing-refresh-token': 'Your session could not be renewed. Please sign in again.',
  'mfa-required': 'Multi-factor authentication is required. Please sign in again to complete it.',
  unknown: 'Signing in failed. Please try again.',
} as const;
export type IdentityErrorKind = keyof typeof IDENTITY_ERRORS;

/** Classifies an error of the Auth0 SDK by its `error` code, class name or message. */
export function identityErrorKind(err: unknown): IdentityErrorKind {
  const e = (err ?? {}) as { error?: string; name?: string; message?: string };
  const code = e.error ?? '';
  const name = e.name ?? '';
  const message = e.message ?? String(err);
  if (isAccountDeactivated(err)) return 'account-deactivated';
  if (code === 'login_required' || code === 'consent_required' || code === 'interaction_required') return 'login-required';
  if (code === 'missing_refresh_token' || name === 'MissingRefreshTokenError') return 'missing-refresh-token';
  if (code === 'mfa_required' || name === 'MfaRequiredError') return 'mfa-required';
  if (code === 'timeout' || name === 'TimeoutError' || name === 'PopupTimeoutError') return 'timeout';
  if (code === 'cancelled' || name === 'PopupCancelledError') return 'popup-closed';
  if (/invalid state/i.test(message)) return 'invalid-state';
  return 'unknown';
}

/** Identity errors that end the local session: the user signs in again (a deactivated one is refused there). */
export const ENDS_LOCAL_SESSION: readonly IdentityErrorKind[] = ['login-required', 'missing-refresh-token', 'account-deactivated'];

/** The organisation's subdomain from the host name (demo.example.org -> demo); a host without one uses the default. */
export function subdomainFromHost(hostname: string, fallback: string): string {
  const labels = hostname.toLowerCase().split('.');
  if (/^[\d.]+$/.test(hostname) || hostname.startsWith('[')) return fallback;
  // demo.localhost has two labels; tributary.example.org has three and no organisation label
  const minLabels = labels.at(-1) === 'localhost' ? 2 : 3;
  if (labels.length < minLabels || labels[0] === 'www') return fallback;
  return labels[0]!;
}
