/**
 * Sends a page opened under another loopback name of PUBLIC_URL (127.0.0.1, [::1], or localhost
 * when PUBLIC_URL uses an address) to PUBLIC_URL, same path and query. The identity provider
 * signs in only for the app's own origins, so the app opened at the address the server listens
 * on would otherwise end on an error page. API calls answer where they are asked; organisation
 * subdomains (demo.localhost) and the other APP_ORIGINS are left alone.
 */
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config.ts';

const isLoopback = (hostname: string) =>
  hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);

/** a browser navigating (fetches of data and assets are not redirected) */
const isPageRequest = (method: string, mode: string | undefined, accept: string | undefined) =>
  (method === 'GET' || method === 'HEAD') && (mode === 'navigate' || (mode === undefined && /\btext\/html\b/i.test(accept ?? '')));

export function canonicalHost(config: Pick<Config, 'publicUrl' | 'appOrigins'>, isApiPath: (path: string) => boolean): MiddlewareHandler {
  const target = new URL(config.publicUrl);
  const appOrigins = new Set(config.appOrigins.map((o) => URL.parse(o)?.origin).filter(Boolean));
  appOrigins.add(target.origin);
  const active = isLoopback(target.hostname);

  return async (c, next) => {
    if (!active || isApiPath(c.req.path)) return next();
    if (!isPageRequest(c.req.method, c.req.header('sec-fetch-mode'), c.req.header('accept'))) return next();
    const url = new URL(c.req.url);
    if (appOrigins.has(url.origin) || !isLoopback(url.hostname)) return next();
    return c.redirect(`${target.origin}${url.pathname}${url.search}`, 307);
  };
}
