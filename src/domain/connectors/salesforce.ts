/** Salesforce, Pardot (Account Engagement) and Salesforce Marketing Cloud. */
import { choice, email, ENVIRONMENT_OPTIONS, secret, settingsSchema, text } from './fields.ts';
import { SANDBOX_BLANKS, SANDBOX_ON_MATCH } from './files.ts';
import type { ConnectorDefinition } from './types.ts';

const MY_DOMAIN = { regex: /^[a-z0-9-]+(\.[a-z0-9-]+)*\.(my\.salesforce\.com|my\.salesforce\.mil|my\.sfcrmproducts\.cn)$/i, message: 'Enter your My Domain, for example acme.my.salesforce.com.' };

const AUTH_TYPES = [
  { value: 'username-password', label: 'User name and password' },
  { value: 'client-credentials', label: 'Client credentials (integration user)' },
  { value: 'oauth', label: 'Sign in with Salesforce (OAuth)' },
];
const WITH_APP_SECRET = { field: 'authenticationType', is: ['username-password', 'client-credentials'] };

export const salesforce: ConnectorDefinition = {
  system: 'salesforce',
  name: 'Salesforce',
  vendor: 'Salesforce',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    environment: choice('Environment', ENVIRONMENT_OPTIONS, { description: 'Sandbox signs in at test.salesforce.com.' }),
    authenticationType: choice('Authentication type', AUTH_TYPES),
    customDomain: text('Custom domain (My Domain)', {
      required: true, requiredWhen: { field: 'authenticationType', is: ['client-credentials'] }, endpoint: true,
      pattern: MY_DOMAIN, placeholder: 'acme.my.salesforce.com',
    }),
    // signing in with OAuth, the server's connected app (OAUTH_CLIENT_ID_SALESFORCE) may stand in
    clientId: text('Consumer key (client ID)', { required: true, requiredWhen: WITH_APP_SECRET }),
    clientSecret: secret('Consumer secret', { required: true, requiredWhen: WITH_APP_SECRET }),
    username: email('User name', { when: { field: 'authenticationType', is: ['username-password'] } }),
    password: secret('Password', { when: { field: 'authenticationType', is: ['username-password'] } }),
    securityToken: secret('Security token', { required: false, when: { field: 'authenticationType', is: ['username-password'] }, description: 'Needed unless your IP range is trusted.' }),
    refreshToken: secret('Refresh token', { required: false, when: { field: 'authenticationType', is: ['oauth'] }, description: 'Saved by Connect. An Administrator who already has one may paste it.' }),
  }),
  additionalSettings: {
    source: settingsSchema({
      object: text('Top-level object', { placeholder: 'Contact' }),
      reportId: text('Report ID', { required: false, placeholder: '00O5g00000AbCdE', description: 'Optional: pull the rows of a report with a standard date filter.' }),
    }),
    destination: settingsSchema({
      object: text('Top-level object', { placeholder: 'Contact' }),
      externalIdField: text('External ID field for upserts', {
        required: false, placeholder: 'Tributary_Id__c',
        description: 'Optional: a field marked External ID in Salesforce. New records are upserted by it, so sending one again updates it instead of adding another.',
      }),
      onMatch: choice('When a record matches', SANDBOX_ON_MATCH, {
        required: false, description: 'What a record sent to an existing Salesforce record does to the values already there.',
      }),
      blankValues: choice('Blank incoming values', SANDBOX_BLANKS, {
        required: false, when: { field: 'onMatch', is: ['overwrite'] }, description: 'Whether an empty value in the record clears the value already there.',
      }),
    }),
  },
  objects: [
    { name: 'Account', label: 'Accounts' },
    { name: 'Contact', label: 'Contacts' },
    { name: 'Lead', label: 'Leads' },
    { name: 'Opportunity', label: 'Opportunities' },
    { name: 'Campaign', label: 'Campaigns' },
    { name: 'CampaignMember', label: 'Campaign members' },
    { name: 'Task', label: 'Tasks' },
    { name: 'npe01__OppPayment__c', label: 'Payments (NPSP)' },
    { name: 'npe03__Recurring_Donation__c', label: 'Recurring donations (NPSP)' },
    { name: 'npsp__DataImport__c', label: 'NPSP Data Import (rows for NPSP batch processing)' },
  ],
  authentication: 'OAuth 2.0 at /services/oauth2/token of login.salesforce.com, test.salesforce.com or your My Domain: the web server flow (Connect, with PKCE; the refresh token is kept), the username-password flow (password plus security token) or the client-credentials flow of a connected app.',
  docs: 'https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_flows.htm',
  support: 'full',
};

const PARDOT_AUTH = [
  { value: 'username-password', label: 'User name and password' },
  { value: 'oauth', label: 'Sign in with Salesforce (OAuth)' },
];
const PARDOT_PASSWORD = { field: 'authenticationType', is: ['username-password', ''] };

export const pardot: ConnectorDefinition = {
  system: 'pardot',
  name: 'Pardot (Account Engagement)',
  vendor: 'Salesforce',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    environment: choice('Environment', ENVIRONMENT_OPTIONS, { description: 'Sandbox uses test.salesforce.com and pi.demo.pardot.com.' }),
    businessUnitId: text('Business unit ID', { pattern: { regex: /^0Uv[A-Za-z0-9]{12}([A-Za-z0-9]{3})?$/, message: 'A business unit ID starts with 0Uv and has 15 or 18 characters.' } }),
    // connections saved before Connect came have no authentication type: the username-password flow
    authenticationType: choice('Authentication type', PARDOT_AUTH, { required: false, defaultValue: 'username-password' }),
    // signing in with OAuth, the server's connected app (OAUTH_CLIENT_ID_PARDOT) may stand in
    clientId: text('Consumer key (client ID)', { required: true, requiredWhen: PARDOT_PASSWORD }),
    clientSecret: secret('Consumer secret', { required: true, requiredWhen: PARDOT_PASSWORD }),
    username: email('Salesforce user name', { when: PARDOT_PASSWORD }),
    password: secret('Password', { when: PARDOT_PASSWORD }),
    securityToken: secret('Security token', { required: false, when: PARDOT_PASSWORD }),
    refreshToken: secret('Refresh token', { required: false, when: { field: 'authenticationType', is: ['oauth'] }, description: 'Saved by Connect. An Administrator who already has one may paste it.' }),
  }),
  additionalSettings: {},
  objects: [
    { name: 'prospects', label: 'Prospects' },
    { name: 'lists', label: 'Lists' },
    { name: 'list-memberships', label: 'List memberships' },
    { name: 'campaigns', label: 'Campaigns' },
    { name: 'visitor-activities', label: 'Visitor activities' },
    { name: 'custom-fields', label: 'Custom fields' },
  ],
  authentication: 'Salesforce OAuth 2.0: Connect (the web server flow with PKCE; the refresh token is kept) or the username-password flow; Pardot API v5 calls carry the bearer token and the Pardot-Business-Unit-Id header.',
  docs: 'https://developer.salesforce.com/docs/marketing/pardot/guide/authentication.html',
  support: 'full',
};

export const salesforceMarketingCloud: ConnectorDefinition = {
  system: 'salesforce-marketing-cloud',
  name: 'Salesforce Marketing Cloud',
  vendor: 'Salesforce',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    subdomain: text('Tenant subdomain', {
      endpoint: true,
      pattern: { regex: /^[a-z0-9-]{4,60}$/i, message: 'Enter the subdomain of your authentication base URI (the part before .auth.marketingcloudapis.com).' },
      placeholder: 'mc563885gzs27c5t9-63k636ttgm',
    }),
    clientId: text('Client ID'),
    clientSecret: secret('Client secret'),
    accountId: text('Account ID (MID)', { required: false, pattern: { regex: /^\d+$/, message: 'The MID is a number.' } }),
    // Marketing Cloud's REST API cannot list data extensions: the wizard describes the fields of these
    dataExtensions: text('Data extensions', { required: false, description: 'Their external keys, comma-separated: the data extensions formulas will read or write, so the wizard can show their fields.' }),
  }),
  additionalSettings: {
    source: settingsSchema({
      dataExtension: text('Data extension external key'),
      modifiedField: text('Date field of the last change', { required: false, description: 'A date field of the data extension: only rows changed since the last run are read. Without one, every row is read each time.' }),
    }),
    destination: settingsSchema({
      dataExtension: text('Data extension external key'),
      primaryKeys: text('Primary key fields', { required: false, description: 'Comma-separated. Without them, Tributary reads them from the data extension\'s rows.' }),
    }),
  },
  objects: [
    { name: 'data-extensions', label: 'Data extensions' },
    { name: 'subscribers', label: 'Subscribers' },
    { name: 'lists', label: 'Lists' },
    { name: 'sends', label: 'Sends' },
    { name: 'journeys', label: 'Journeys' },
  ],
  authentication: 'OAuth 2.0 client credentials of an installed package, at https://{subdomain}.auth.marketingcloudapis.com/v2/token (JSON body, optional account_id); REST calls at the answer\'s rest_instance_url.',
  docs: 'https://developer.salesforce.com/docs/marketing/marketing-cloud/guide/access-token-s2s.html',
  support: 'full',
};

export const SALESFORCE = [salesforce, pardot, salesforceMarketingCloud];
