/**
 * Request headers a user may not choose (the generic HTTP connector's API key header). They
 * steer the connection itself (hop-by-hop headers, Host, proxies) or unlock a cloud metadata
 * service, which answers only requests carrying them. The form refuses them, and the server
 * drops them before sending, for settings saved before this rule.
 */

const FORBIDDEN = new Set([
  'host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'http2-settings',
  'content-length', 'content-encoding', 'accept-encoding', 'expect', 'forwarded', 'x-real-ip', 'via',
  // cloud metadata services: Google, Azure, AWS (IMDSv2) and Azure App Service's identity endpoint
  'metadata-flavor', 'metadata', 'x-google-metadata-request', 'x-aws-ec2-metadata-token',
  'x-aws-ec2-metadata-token-ttl-seconds', 'x-identity-header',
]);
const FORBIDDEN_PREFIXES = ['proxy-', 'x-forwarded-', 'x-aws-ec2-metadata-', 'sec-'];

export const FORBIDDEN_HEADER_MESSAGE = 'This header cannot be used: it controls the connection itself or a cloud metadata service.';

export function isForbiddenRequestHeader(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return FORBIDDEN.has(lower) || FORBIDDEN_PREFIXES.some((p) => lower.startsWith(p));
}

/** The headers without those a user may not choose. */
export function withoutForbiddenHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !isForbiddenRequestHeader(name)));
}
