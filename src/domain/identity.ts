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
