/** The table of vendors that sign in with OAuth (src/domain/connectors/oauth.ts) and the application credentials the server falls back to. */
import { describe, expect, it } from 'vitest';
import { checkClientVariables, codeChallenge, oauthClient } from '../../server/connectors/oauth/flow.ts';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import { formFields } from '../../src/domain/connectors/fields.ts';
import { mayPasteTokens, OAUTH_VENDORS, readConnectReturn, usesOAuth } from '../../src/domain/connectors/oauth.ts';
import { policiesFor, ROLES } from '../../src/domain/roles.ts';

describe('the OAuth vendors', () => {
  it('keep their refresh token in a secret, optional setting of the system, and use PKCE where the vendor supports it', () => {
    for (const vendor of Object.values(OAUTH_VENDORS)) {
      const field = formFields(connectorFor(vendor.system).settings).find((f) => f.key === vendor.grantField);
      expect(field, vendor.system).toMatchObject({ secret: true, required: false });
    }
    expect(Object.keys(OAUTH_VENDORS).sort()).toEqual(['constant-contact', 'fenxt', 'hubspot', 'mailchimp', 'pardot', 'renxt', 'salesforce']);
    // Mailchimp's OAuth knows no PKCE, and gives a lasting access token instead of a refresh token
    expect(Object.values(OAUTH_VENDORS).filter((v) => !v.pkce).map((v) => v.system)).toEqual(['mailchimp']);
    expect(Object.values(OAUTH_VENDORS).filter((v) => v.keeps === 'access-token').map((v) => [v.system, v.grantField])).toEqual([['mailchimp', 'accessToken']]);
  });

  it('send Salesforce to the login host the settings name', () => {
    const sf = OAUTH_VENDORS.salesforce!;
    expect(sf.authorizeUrl({ environment: 'production' })).toBe('https://login.salesforce.com/services/oauth2/authorize');
    expect(sf.tokenUrl({ environment: 'sandbox' })).toBe('https://test.salesforce.com/services/oauth2/token');
    expect(sf.authorizeUrl({ environment: 'sandbox', customDomain: 'riverside.my.salesforce.com' })).toBe('https://riverside.my.salesforce.com/services/oauth2/authorize');
    expect(usesOAuth('salesforce', { authenticationType: 'oauth' })).toBe(true);
    expect(usesOAuth('salesforce', { authenticationType: 'username-password' })).toBe(false);
    expect(usesOAuth('renxt', {})).toBe(true);
    expect(usesOAuth('mailchimp', {})).toBe(false);
    expect(usesOAuth('mailchimp', { authenticationType: 'oauth' })).toBe(true);
    // HubSpot: a private app's token unless Connect is chosen (connections saved before OAuth have no type)
    expect(usesOAuth('hubspot', { authenticationType: 'oauth' })).toBe(true);
    expect(usesOAuth('hubspot', {})).toBe(false);
    expect(OAUTH_VENDORS.hubspot!.tokenUrl({})).toBe('https://api.hubapi.com/oauth/v1/token');
  });

  it("compute RFC 7636's S256 challenge (its appendix B example)", () => {
    expect(codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
});

describe("the application's credentials", () => {
  it("are the connection's own, else the server's; an id without a secret is none", () => {
    const env = { OAUTH_CLIENT_ID_RENXT: 'server-id', OAUTH_CLIENT_SECRET_RENXT: 'server-secret' };
    expect(oauthClient('renxt', { clientId: 'own', clientSecret: 'own-secret' }, env)).toEqual({ clientId: 'own', clientSecret: 'own-secret' });
    expect(oauthClient('renxt', {}, env)).toEqual({ clientId: 'server-id', clientSecret: 'server-secret' });
    expect(oauthClient('renxt', { clientId: 'own' }, env)).toBeNull();
    expect(oauthClient('fenxt', {}, env)).toBeNull();
  });

  it('are refused at start when the server has half of a pair', () => {
    expect(() => checkClientVariables(['renxt'], { OAUTH_CLIENT_ID_RENXT: 'x' })).toThrow('OAUTH_CLIENT_ID_RENXT and OAUTH_CLIENT_SECRET_RENXT are set together or not at all');
    expect(() => checkClientVariables(['renxt'], {})).not.toThrow();
  });
});

describe('pasting a refresh token', () => {
  it('is offered to Administrators only', () => {
    for (const role of ROLES) expect(mayPasteTokens(policiesFor([role])), role).toBe(role === 'Administrator');
    expect(mayPasteTokens(policiesFor(['Power User', 'Connection Manager', 'User Manager']))).toBe(false);
  });
});

describe("the vendor's answer on the Connections screen", () => {
  it('is read under names of its own, and is absent without a state', () => {
    expect(readConnectReturn(new URLSearchParams('oauthState=s&oauthCode=c'))).toEqual({ state: 's', code: 'c' });
    expect(readConnectReturn(new URLSearchParams('oauthState=s&oauthError=access_denied'))).toEqual({ state: 's', error: 'access_denied' });
    expect(readConnectReturn(new URLSearchParams('code=c&state=s'))).toBeNull();
  });
});
