/**
 * Whether the Auth0 SDK loads with the page (a session may exist) or only when a guest signs in
 * (sessionMayExist in src/services/auth.ts), read from what the SDK itself leaves in the browser.
 */
import { describe, expect, it } from 'vitest';
import { sessionMayExist } from '../../src/services/auth.ts';

const place = (search = '', cookie = '', storageKeys: string[] = []) => ({ search, cookie: () => cookie, storageKeys: () => storageKeys });

describe('sessionMayExist', () => {
  it('says no for a guest: no sign-in response, no SDK cookie, no SDK cache', () => {
    expect(sessionMayExist(place())).toBe(false);
    expect(sessionMayExist(place('?path=%2Fconnections', 'theme=dark; tributary.redirect=%2Fx', ['mantine-color-scheme-value']))).toBe(false);
  });

  it('says yes for the sign-in response in the address, a code or an error with its state, as the SDK tests it', () => {
    expect(sessionMayExist(place('?code=abc&state=xyz'))).toBe(true);
    expect(sessionMayExist(place('?state=xyz&iss=http%3A%2F%2Flocalhost%2F&code=abc'))).toBe(true);
    expect(sessionMayExist(place('?error=login_required&state=xyz'))).toBe(true);
    expect(sessionMayExist(place('?code=abc'))).toBe(false);
    expect(sessionMayExist(place('?state=xyz'))).toBe(false);
  });

  it('says yes for the cookie the SDK sets at sign-in, its legacy twin and the older name', () => {
    expect(sessionMayExist(place('', 'auth0.tributary-app.is.authenticated=true'))).toBe(true);
    expect(sessionMayExist(place('', 'a=1; _legacy_auth0.tributary-app.is.authenticated=true'))).toBe(true);
    expect(sessionMayExist(place('', 'auth0.is.authenticated=true'))).toBe(true);
    expect(sessionMayExist(place('', 'auth0.tributary-app.organization_hint=org'))).toBe(false);
  });

  it('says yes where the SDK keeps tokens in localStorage, from which it reads the user', () => {
    expect(sessionMayExist(place('', '', ['@@auth0spajs@@::tributary-app::@@user@@']))).toBe(true);
  });

  it('says yes when the cookie or the storage cannot be read', () => {
    expect(sessionMayExist({ search: '', cookie: () => '', storageKeys: () => { throw new Error('SecurityError'); } })).toBe(true);
  });
});
