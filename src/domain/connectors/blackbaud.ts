/** Blackbaud systems: Raiser's Edge NXT and Financial Edge NXT (SKY API), Blackbaud CRM and Altru (AppFx web service), Luminate Online. */
import { choice, secret, settingsSchema, text, url } from './fields.ts';
import { SANDBOX_BLANKS, SANDBOX_ON_MATCH } from './files.ts';
import type { ConnectorDefinition } from './types.ts';

/**
 * SKY API: an OAuth 2.0 application (id and secret: the connection's own, or the server's,
 * OAUTH_CLIENT_ID_<SYSTEM> and OAUTH_CLIENT_SECRET_<SYSTEM>), a subscription key, and the refresh
 * token that Connect obtains from an administrator's consent (src/domain/connectors/oauth.ts).
 */
const skyApiSettings = () => settingsSchema({
  clientId: text('Application ID (OAuth client ID)', { required: false, description: 'Leave empty to use the application Tributary is set up with.' }),
  clientSecret: secret('Application secret', { required: false }),
  subscriptionKey: secret('SKY API subscription key', { description: 'Primary or secondary key of your SKY Developer subscription (Bb-Api-Subscription-Key).' }),
  refreshToken: secret('Refresh token', { required: false, description: 'Saved by Connect. An Administrator who already has one may paste it.' }),
});

export const renxt: ConnectorDefinition = {
  system: 'renxt',
  name: "Raiser's Edge NXT",
  vendor: 'Blackbaud',
  roles: { source: true, destination: true },
  settings: skyApiSettings(),
  additionalSettings: {
    destination: settingsSchema({
      giftBatchPrefix: text('Gift batch prefix', { required: false, placeholder: 'Tributary', objects: ['gifts'] }),
      constituentCode: text('Constituent code for new constituents', { required: false, objects: ['constituents'] }),
      onMatch: choice('When a record matches', SANDBOX_ON_MATCH, {
        required: false, description: 'What a record sent to an existing constituent does to the values already there.',
      }),
      blankValues: choice('Blank incoming values', SANDBOX_BLANKS, {
        required: false, when: { field: 'onMatch', is: ['overwrite'] },
        description: 'Whether an empty value in the record clears the value already there (an e-mail, phone or address is never removed).',
      }),
    }),
  },
  objects: [
    { name: 'constituents', label: 'Constituents' },
    { name: 'gifts', label: 'Gifts' },
    { name: 'addresses', label: 'Addresses' },
    { name: 'emailaddresses', label: 'Email addresses' },
    { name: 'phones', label: 'Phones' },
    { name: 'relationships', label: 'Relationships' },
    { name: 'actions', label: 'Actions' },
    { name: 'notes', label: 'Notes' },
    { name: 'events', label: 'Events' },
    { name: 'participants', label: 'Event participants' },
    { name: 'funds', label: 'Funds' },
    { name: 'campaigns', label: 'Campaigns' },
    { name: 'appeals', label: 'Appeals' },
  ],
  authentication: 'OAuth 2.0 (SKY API): Connect asks an administrator of the environment for consent (authorization code with PKCE); the refresh token is exchanged at oauth2.sky.blackbaud.com/token with the application id and secret; every call carries the Bb-Api-Subscription-Key header.',
  docs: 'https://developer.blackbaud.com/skyapi/docs/authorization',
  support: 'full',
};

export const fenxt: ConnectorDefinition = {
  system: 'fenxt',
  name: 'Financial Edge NXT',
  vendor: 'Blackbaud',
  roles: { source: true, destination: true },
  settings: skyApiSettings(),
  additionalSettings: {
    destination: settingsSchema({
      journal: text('Journal for new batches', { required: false, placeholder: 'Cash Receipts', objects: ['journalentrybatches'], description: 'The journal (its name or code) each run\'s batch of gifts is entered in.' }),
      debitAccount: text('Default debit account', { required: false, placeholder: '01-1000-00', objects: ['journalentrybatches'], description: 'The account number a gift debits when its record names none (the bank or cash account).' }),
      creditAccount: text('Default credit account', { required: false, placeholder: '01-4100-00', objects: ['journalentrybatches'], description: 'The account number a gift credits when its record names none (the contribution revenue account).' }),
      batchDescriptionPrefix: text('Batch description prefix', { required: false, placeholder: 'Tributary', objects: ['journalentrybatches'], description: 'A batch is described by this prefix, the time of its run and a tag of the run; Financial Edge NXT takes 60 characters in all, so keep the prefix to 33.' }),
    }),
  },
  objects: [
    { name: 'journalentrybatches', label: 'Journal entry batches' },
    { name: 'journalentries', label: 'Journal entries' },
    { name: 'accounts', label: 'Accounts' },
    { name: 'projects', label: 'Projects' },
    { name: 'vendors', label: 'Vendors' },
    { name: 'invoices', label: 'Invoices' },
  ],
  authentication: 'OAuth 2.0 (SKY API), as Raiser\'s Edge NXT, with the General Ledger API.',
  docs: 'https://developer.blackbaud.com/skyapi/docs/authorization',
  support: 'full',
};

/** The Infinity platform's AppFx web service, answered with the user's network credentials. */
const appFxSettings = (urlExample: string) => settingsSchema({
  url: url('AppFx web service URL', { placeholder: urlExample }),
  database: text('Database name'),
  username: text('User name', { description: 'A Blackbaud CRM user, with the domain where your site uses one (DOMAIN\\user).' }),
  password: secret('Password'),
});

/** What a formula reads from and writes to the AppFx web service: a site's own data list, search list and forms, by ID. */
const appFxSource = () => settingsSchema({
  dataListId: text('Data list ID (changed since)', {
    placeholder: '00000000-0000-0000-0000-000000000000',
    description: 'The GUID of a data list that takes a DATECHANGEDSINCE parameter and returns ID and DATECHANGED with each row, oldest change first.',
  }),
});
const appFxDestination = () => settingsSchema({
  searchListId: text('Search list ID', { placeholder: '00000000-0000-0000-0000-000000000000', description: 'The GUID of the search list that finds a match; its filter fields are those the matching compares (LOOKUPID, EMAILADDRESS, KEYNAME).' }),
  addFormId: text('Add form ID', { placeholder: '00000000-0000-0000-0000-000000000000', description: 'The GUID of the add data form that creates a record.' }),
  editFormId: text('Edit form ID', { placeholder: '00000000-0000-0000-0000-000000000000', description: 'The GUID of the edit data form that updates a matched record.' }),
});

export const bbcrm: ConnectorDefinition = {
  system: 'bbcrm',
  name: 'Blackbaud CRM',
  vendor: 'Blackbaud',
  roles: { source: true, destination: true },
  settings: appFxSettings('https://crm.example.org/bbappfx/appfxwebservice.asmx'),
  additionalSettings: { source: appFxSource(), destination: appFxDestination() },
  objects: [
    { name: 'constituents', label: 'Constituents' },
    { name: 'revenue', label: 'Revenue' },
  ],
  authentication: 'HTTP Basic authentication of a CRM user against the AppFxWebService.asmx SOAP endpoint, naming the database in each request.',
  docs: 'https://www.blackbaud.com/files/support/guides/infinitytechref/Content/infinityapi/coinfinityapioverview.htm',
  support: 'full',
};

export const altru: ConnectorDefinition = {
  system: 'altru',
  name: 'Altru',
  vendor: 'Blackbaud',
  roles: { source: true, destination: true },
  settings: appFxSettings('https://altru.blackbaudhosting.com/12345ABC/appfxwebservice.asmx'),
  additionalSettings: { source: appFxSource(), destination: appFxDestination() },
  objects: [
    { name: 'constituents', label: 'Constituents' },
    { name: 'revenue', label: 'Revenue (read only)' },
    { name: 'memberships', label: 'Memberships (read only)' },
  ],
  authentication: 'HTTP Basic authentication of an Altru user against the hosted AppFxWebService.asmx SOAP endpoint, naming the database in each request.',
  docs: 'https://www.blackbaud.com/files/support/guides/infinitytechref/Content/infinityapi/coinfinityapioverview.htm',
  support: 'full',
};

export const luminateOnline: ConnectorDefinition = {
  system: 'luminate-online',
  name: 'Luminate Online',
  vendor: 'Blackbaud',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    url: url('Secure site URL', { placeholder: 'https://secure2.convio.net/yourorg/site', description: 'Your secure Luminate Online path, ending in /site.' }),
    apiKey: secret('API key', { description: 'The convio_api_key of your site (Setup > Site Options > Open API Configuration).' }),
    loginName: text('API administrator login name'),
    loginPassword: secret('API administrator password'),
  }),
  additionalSettings: {},
  // constituents read and written, donations read; TeamRaiser, groups and surveys are still to come
  objects: [
    { name: 'constituents', label: 'Constituents' },
    { name: 'donations', label: 'Donations' },
  ],
  authentication: 'Server API calls (SRConsAPI, SRDonationAPI) posted as a form carrying api_key, v=1.0, response_format=json and the API administrator\'s login_name and login_password.',
  docs: 'https://www.blackbaud.com/files/support/guides/luminate-online-api/',
  support: 'full',
};

export const BLACKBAUD = [renxt, fenxt, bbcrm, altru, luminateOnline];
