/** Security headers on every response, the identity provider's included. */
export function securityHeaders(opts: { formActions: string[]; connect: string[]; dev: boolean; https?: boolean }): Record<string, string> {
  const csp = [
    "default-src 'self'",
    // no inline script; Vite's dev preamble is the one exception, in dev only
    opts.dev ? "script-src 'self' 'unsafe-inline'" : "script-src 'self'",
    // Mantine writes its CSS variables into style elements
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${["'self'", ...opts.connect, ...(opts.dev ? ['ws:'] : [])].join(' ')}`,
    `form-action ${["'self'", ...opts.formActions].join(' ')}`,
    "frame-ancestors 'self'",
    "object-src 'none'",
    "base-uri 'self'",
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'SAMEORIGIN',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
    // only when the public address is https: over plain http the header would be ignored, and on
    // localhost it would pin every other local app to https for a year
    ...(opts.https ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}
