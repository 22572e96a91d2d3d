/**
 * Systems that sign in with OAuth 2.0's authorization code grant (RFC 6749 section 4.1, with PKCE,
 * RFC 7636, where the vendor supports it): one table says, per vendor, where its consent page and
 * token endpoint are, which scopes to ask for, whether it takes PKCE and how the application
 * authenticates at the token endpoint. The connection form offers "Connect to <system>" for each;
 * the server builds the authorize URL and exchanges the code (server/connectors/oauth/).
 */
import { ACTIONS, RESOURCES, can, type Policies } from '../roles.ts';
import type { SystemId } from './types.ts';

export interface OAuthVendor {
  system: SystemId;
  /** the vendor's consent page; it may depend on the connection's settings (a Salesforce sandbox or My Domain) */
  authorizeUrl(settings: Record<string, string>): string;
  /** where the code is exchanged for tokens */
  tokenUrl(settings: Record<string, string>): string;
  /** asked for in the authorize request; empty where the vendor grants what the application is registered for */
  scopes: string[];
  /** PKCE with S256 */
  pkce: boolean;
  /** how the application's id and secret reach the token endpoint: HTTP Basic, or in the form body */
  clientAuthentication: 'basic' | 'body';
  /**
   * The secret setting the grant is kept in: the refresh token, or, for a vendor whose access
   * tokens never expire and who gives no refresh token (Mailchimp), the access token itself.
   */
  grantField: string;
  /** what the token endpoint's answer gives to keep: a refresh token (the usual), or a lasting access token */
  keeps: 'refresh-token' | 'access-token';
  /** the setting that must have this value for the connection to sign in with OAuth (Salesforce offers other ways) */
  when?: { field: string; is: string };
}

/**
 * SKY API: https://developer.blackbaud.com/skyapi/docs/authorization/auth-code-flow (consent at
 * app.blackbaud.com/oauth/authorize, tokens at oauth2.sky.blackbaud.com/token, the application's
 * id and secret as HTTP Basic; scopes are the application's, set in its registration; PKCE S256).
 */
const skyApi = (system: SystemId): OAuthVendor => ({
  system,
  authorizeUrl: () => 'https://app.blackbaud.com/oauth/authorize',
  tokenUrl: () => 'https://oauth2.sky.blackbaud.com/token',
  scopes: [],
  pkce: true,
  clientAuthentication: 'basic',
  grantField: 'refreshToken',
  keeps: 'refresh-token',
});

/** Salesforce's login host for these settings: My Domain, else test.salesforce.com for a sandbox, else login.salesforce.com. */
export function salesforceLoginHost(settings: Record<string, string>): string {
  if (settings.customDomain) return `https://${settings.customDomain}`;
  return settings.environment === 'sandbox' ? 'https://test.salesforce.com' : 'https://login.salesforce.com';
}

/**
 * Salesforce's OAuth 2.0 web server flow: /services/oauth2/authorize and /services/oauth2/token of
 * the login host, PKCE S256, the consumer key and secret in the body; `refresh_token` is the scope
 * that yields a refresh token, `api` the REST API.
 */
const salesforce: OAuthVendor = {
  system: 'salesforce',
  authorizeUrl: (s) => `${salesforceLoginHost(s)}/services/oauth2/authorize`,
  tokenUrl: (s) => `${salesforceLoginHost(s)}/services/oauth2/token`,
  scopes: ['api', 'refresh_token'],
  pkce: true,
  clientAuthentication: 'body',
  grantField: 'refreshToken',
  keeps: 'refresh-token',
  when: { field: 'authenticationType', is: 'oauth' },
};

/**
 * HubSpot: https://developers.hubspot.com/docs/api/oauth-quickstart-guide (consent at
 * app.hubspot.com/oauth/authorize, tokens at api.hubapi.com/oauth/v1/token with client_id and
 * client_secret in the body, PKCE's code_verifier accepted); the scopes of the objects read and written.
 */
const hubspot: OAuthVendor = {
  system: 'hubspot',
  authorizeUrl: () => 'https://app.hubspot.com/oauth/authorize',
  tokenUrl: () => 'https://api.hubapi.com/oauth/v1/token',
  scopes: [
    'oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.objects.companies.read', 'crm.objects.companies.write',
    'crm.objects.deals.read', 'crm.schemas.contacts.read', 'crm.schemas.companies.read', 'crm.schemas.deals.read',
  ],
  pkce: true,
  clientAuthentication: 'body',
  grantField: 'refreshToken',
  keeps: 'refresh-token',
  when: { field: 'authenticationType', is: 'oauth' },
};

/**
 * Constant Contact: https://developer.constantcontact.com/api_guide/server_flow.html (consent at
 * authz.constantcontact.com/oauth2/default/v1/authorize, tokens at …/v1/token with the
 * application's id and secret as HTTP Basic, PKCE S256); `offline_access` yields the refresh
 * token, which Constant Contact rotates on every use.
 */
const constantContact: OAuthVendor = {
  system: 'constant-contact',
  authorizeUrl: () => 'https://authz.constantcontact.com/oauth2/default/v1/authorize',
  tokenUrl: () => 'https://authz.constantcontact.com/oauth2/default/v1/token',
  scopes: ['account_read', 'contact_data', 'offline_access'],
  pkce: true,
  clientAuthentication: 'basic',
  grantField: 'refreshToken',
  keeps: 'refresh-token',
};

/**
 * Pardot (Account Engagement): Salesforce's web server flow at the login host, as for Salesforce,
 * with `pardot_api` beside `api` and `refresh_token`.
 */
const pardot: OAuthVendor = { ...salesforce, system: 'pardot', scopes: ['api', 'pardot_api', 'refresh_token'] };

/**
 * Mailchimp: https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/ (consent
 * at login.mailchimp.com/oauth2/authorize, the code exchanged at …/oauth2/token with client_id and
 * client_secret in the body; no scopes, no PKCE). The access token never expires and no refresh
 * token comes with it: the token is what is kept. The account's data centre is learnt afterwards
 * from …/oauth2/metadata (server/connectors/mailchimp/connector.ts).
 */
const mailchimp: OAuthVendor = {
  system: 'mailchimp',
  authorizeUrl: () => 'https://login.mailchimp.com/oauth2/authorize',
  tokenUrl: () => 'https://login.mailchimp.com/oauth2/token',
  scopes: [],
  pkce: false,
  clientAuthentication: 'body',
  grantField: 'accessToken',
  keeps: 'access-token',
  when: { field: 'authenticationType', is: 'oauth' },
};

export const OAUTH_VENDORS: Partial<Record<SystemId, OAuthVendor>> = {
  renxt: skyApi('renxt'),
  fenxt: skyApi('fenxt'),
  salesforce,
  hubspot,
  'constant-contact': constantContact,
  pardot,
  mailchimp,
};

/** The system's OAuth description, when it signs in with OAuth. */
export const oauthVendorFor = (system: SystemId | null | undefined): OAuthVendor | undefined => (system ? OAUTH_VENDORS[system] : undefined);

/** Whether a connection with these settings signs in with OAuth (Salesforce only with that authentication type). */
export function usesOAuth(system: SystemId | null | undefined, settings: Record<string, string | undefined>): boolean {
  const vendor = oauthVendorFor(system);
  if (!vendor) return false;
  return !vendor.when || settings[vendor.when.field] === vendor.when.is;
}

/** The callback the vendor sends the browser back to, under PUBLIC_URL. */
export const OAUTH_CALLBACK_PATH = '/integrations/oauth/callback';

/** How long a started connection may wait for the vendor's answer. */
export const OAUTH_STATE_TTL_MS = 15 * 60 * 1000;

/**
 * Where the callback sends the browser: the Connections screen, with the vendor's answer under
 * names of its own, so the sign-in SDK never takes it for an answer to Tributary's own sign-in.
 */
export const OAUTH_RETURN_PARAMS = { state: 'oauthState', code: 'oauthCode', error: 'oauthError' } as const;

/**
 * Pasting a refresh token obtained elsewhere is for Administrators (SPEC.md section 6: full
 * access, which only that role's policies amount to); everyone else connects through the
 * vendor's consent page.
 */
export const mayPasteTokens = (policies: Policies): boolean => RESOURCES.every((r) => ACTIONS.every((a) => can(policies, r, a)));

export const PASTE_REFUSED_MESSAGE = 'Only an Administrator can paste a token got elsewhere (a refresh token, or Mailchimp\'s access token). Use Connect instead.';

/** The settings that hold tokens: not offered to people who may not paste them. */
export function tokenFields(system: SystemId | null | undefined): string[] {
  const vendor = oauthVendorFor(system);
  return vendor ? [vendor.grantField] : [];
}

/** What the form says about each way a connection can fail to complete (the problem's code). */
export const OAUTH_FAILURES = {
  'access-denied': 'You declined to give Tributary access at {system}, so nothing was connected. Connect again to give access.',
  'state-expired': 'This connection attempt expired before {system} answered. Connect again.',
  'state-used': 'This connection attempt was already completed once. Connect again if you need to.',
  'state-invalid': 'This connection attempt is not valid here (it belongs to another user, tenant or data source). Connect again.',
  'vendor-error': '{system} did not give access: {reason}. Connect again.',
  'exchange-failed': '{system} did not exchange the authorization for tokens: {reason}. Connect again.',
} as const;
export type OAuthFailure = keyof typeof OAUTH_FAILURES;

export const oauthFailureMessage = (code: OAuthFailure, system: string, reason = ''): string =>
  OAUTH_FAILURES[code].replace('{system}', system).replace('{reason}', reason);

/** The vendor's answer as the callback hands it to the Connections screen. */
export interface ConnectReturn { state: string; code?: string; error?: string }

/** The vendor's answer in the Connections screen's address, or null when there is none. */
export function readConnectReturn(search: URLSearchParams): ConnectReturn | null {
  const state = search.get(OAUTH_RETURN_PARAMS.state);
  if (!state) return null;
  const code = search.get(OAUTH_RETURN_PARAMS.code);
  const error = search.get(OAUTH_RETURN_PARAMS.error);
  return { state, ...(code ? { code } : {}), ...(error ? { error } : {}) };
}
