import type { AppConfig } from '../domain/identity.ts';

/** The server says where to sign in; served as JSON so the page needs no inline script. */
export async function loadAppConfig(): Promise<AppConfig> {
  const res = await fetch('/app-config.json');
  if (!res.ok) throw new Error(`app configuration could not be loaded (${res.status})`);
  return res.json() as Promise<AppConfig>;
}
