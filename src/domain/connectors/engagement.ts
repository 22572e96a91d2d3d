/** E-mail, SMS, advocacy and marketing systems. */
import { choice, email, secret, settingsSchema, text } from './fields.ts';
import type { ConnectorDefinition } from './types.ts';

export const mailchimp: ConnectorDefinition = {
  system: 'mailchimp',
  name: 'Mailchimp',
  vendor: 'Intuit Mailchimp',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    // connections saved before OAuth came have no authentication type: an API key
    authenticationType: choice('Authentication type', [
      { value: 'api-key', label: 'API key' },
      { value: 'oauth', label: 'Sign in with Mailchimp (OAuth)' },
    ], { required: false, defaultValue: 'api-key' }),
    apiKey: secret('API key', {
      when: { field: 'authenticationType', is: ['api-key', ''] },
      pattern: { regex: /^[0-9a-f]{32}-[a-z]{2,4}\d{1,3}$/, message: 'A Mailchimp API key ends with its data centre, for example -us21.' },
      description: 'Account > Extras > API keys. The part after the dash is your data centre.',
    }),
    // signing in with OAuth, the server's app (OAUTH_CLIENT_ID_MAILCHIMP) may stand in
    clientId: text('App client ID', { required: false, when: { field: 'authenticationType', is: ['oauth'] } }),
    clientSecret: secret('App client secret', { required: false, when: { field: 'authenticationType', is: ['oauth'] } }),
    accessToken: secret('Access token', {
      required: false, when: { field: 'authenticationType', is: ['oauth'] },
      description: 'Saved by Connect: Mailchimp\'s access tokens do not expire. An Administrator who already has one may paste it.',
    }),
  }),
  additionalSettings: {
    source: settingsSchema({ audienceId: text('Audience ID') }),
    destination: settingsSchema({
      audienceId: text('Audience ID'),
      status: choice('Status of new contacts', [
        { value: 'subscribed', label: 'Subscribed' },
        { value: 'pending', label: 'Pending (double opt-in)' },
        { value: 'transactional', label: 'Transactional' },
      ]),
    }),
  },
  objects: [
    { name: 'lists', label: 'Audiences' },
    { name: 'members', label: 'Audience members' },
    { name: 'campaigns', label: 'Campaigns' },
    { name: 'segments', label: 'Segments' },
    { name: 'tags', label: 'Tags' },
  ],
  authentication: 'HTTP Basic with any user name and the API key as password, at https://{dc}.api.mailchimp.com/3.0/ (dc from the key); or OAuth 2.0 (Connect): a bearer access token that never expires, dc from login.mailchimp.com/oauth2/metadata.',
  docs: 'https://mailchimp.com/developer/marketing/docs/fundamentals/#api-structure',
  support: 'full',
};

export const emma: ConnectorDefinition = {
  system: 'emma',
  name: 'Emma',
  vendor: 'Marigold',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    accountId: text('Account ID', { pattern: { regex: /^\d+$/, message: 'The account ID is a number.' } }),
    publicApiKey: secret('Public API key'),
    privateApiKey: secret('Private API key'),
  }),
  additionalSettings: { destination: settingsSchema({ groupId: text('Group ID for new members', { required: false, description: 'New members join this group. A member\'s status (opted out or not) is never changed.' }) }) },
  objects: [
    { name: 'members', label: 'Members' },
    { name: 'groups', label: 'Groups' },
    { name: 'mailings', label: 'Mailings' },
    { name: 'fields', label: 'Fields' },
  ],
  authentication: 'HTTP Basic with the public API key as user name and the private API key as password, at https://api.e2ma.net/{account_id}/.',
  docs: 'https://api.myemma.com/#authentication',
  support: 'full',
};

export const encompass: ConnectorDefinition = {
  system: 'encompass',
  name: 'Encompass',
  vendor: 'Anthology (iModules)',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    clientId: text('Client ID'),
    clientSecret: secret('Client secret'),
  }),
  additionalSettings: {
    // SPEC.md section 9: campaigns less than 60 days old; a single campaign, or all sent within a week or month
    source: settingsSchema({
      campaignFilter: choice('E-mail campaigns', [
        { value: 'single', label: 'A single campaign' },
        { value: 'week', label: 'All sent within a week' },
        { value: 'month', label: 'All sent within a month' },
      ]),
      campaignId: text('Campaign', { when: { field: 'campaignFilter', is: ['single'] } }),
    }),
  },
  // read today (the Email Metric API); constituents, events, event registrations and form submissions are still to come
  objects: [
    { name: 'emailCampaigns', label: 'E-mail campaigns' },
    { name: 'emailRecipients', label: 'E-mail recipients and opens' },
  ],
  authentication: 'OAuth 2.0 client credentials issued for your community, exchanged at the API\'s token endpoint.',
  docs: 'https://support.imodules.com/hc/en-us/articles/228929707-Email-Metric-API',
  support: 'full',
};

export const engagingNetworks: ConnectorDefinition = {
  system: 'engaging-networks',
  name: 'Engaging Networks',
  vendor: 'Engaging Networks',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    dataCentre: choice('Data centre', [
      { value: 'us', label: 'United States (us.engagingnetworks.app)' },
      { value: 'ca', label: 'Canada (ca.engagingnetworks.app)' },
      { value: 'e-activist', label: 'Europe (www.e-activist.com)' },
    ]),
    apiToken: secret('API user token', { description: 'Hello > Account settings > API users: the token of an API user with a whitelisted IP.' }),
    privateToken: secret('Private token (transactions)', { required: false, description: 'Hello > Account settings > Tokens: the private token, for the bulk export of transactions.' }),
  }),
  additionalSettings: {},
  objects: [
    { name: 'supporters', label: 'Supporters' },
    { name: 'transactions', label: 'Transactions' },
    { name: 'pages', label: 'Pages' },
    { name: 'questions', label: 'Questions' },
    { name: 'optins', label: 'Opt-ins' },
  ],
  authentication: 'POST the API user token to /ens/service/authenticate; the answer\'s ens-auth-token goes in the header of later calls. Transactions come from the bulk export (/ea-dataservice/export.service) with the private token.',
  docs: 'https://www.engagingnetworks.support/api/rest/',
  support: 'full',
};

export const everyaction: ConnectorDefinition = {
  system: 'everyaction',
  name: 'EveryAction',
  vendor: 'Bonterra',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    applicationName: text('Application name'),
    apiKey: secret('API key'),
    databaseMode: choice('Database', [
      { value: '1', label: 'My Campaign / EveryAction (mode 1)' },
      { value: '0', label: 'Voter File (mode 0)' },
    ]),
  }),
  additionalSettings: {},
  objects: [
    { name: 'people', label: 'People' },
    { name: 'contributions', label: 'Contributions' },
    { name: 'activistCodes', label: 'Activist codes' },
    { name: 'events', label: 'Events' },
    { name: 'codes', label: 'Source codes' },
  ],
  authentication: 'HTTP Basic with the application name as user name and "{API key}|{database mode}" as password, at api.securevan.com/v4.',
  docs: 'https://docs.everyaction.com/reference/authentication',
  support: 'full',
};

export const constantContact: ConnectorDefinition = {
  system: 'constant-contact',
  name: 'Constant Contact',
  vendor: 'Constant Contact',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    // Connect signs in through Constant Contact's consent page; the server's application (OAUTH_CLIENT_ID_CONSTANT_CONTACT) may stand in
    clientId: text('API key (client ID)', { required: false }),
    clientSecret: secret('Client secret', { required: false }),
    refreshToken: secret('Refresh token', { required: false, description: 'Saved by Connect; it rotates and Tributary keeps the newest. An Administrator who already has one may paste it.' }),
  }),
  additionalSettings: {
    destination: settingsSchema({
      listId: text('Contact list ID for new contacts', { description: 'New contacts join this list (Constant Contact\'s sign-up form). Existing contacts keep their lists and their permission to send.' }),
    }),
  },
  objects: [
    { name: 'contacts', label: 'Contacts' },
    { name: 'contact_lists', label: 'Contact lists' },
    { name: 'contact_custom_fields', label: 'Custom fields' },
    { name: 'emails', label: 'E-mail campaigns' },
    { name: 'contact_tags', label: 'Tags' },
  ],
  authentication: 'OAuth 2.0 (Connect, with PKCE): the refresh token is exchanged at authz.constantcontact.com/oauth2/default/v1/token with HTTP Basic client id and secret, and rotates; v3 API at api.cc.email.',
  docs: 'https://developer.constantcontact.com/api_guide/server_flow.html',
  support: 'full',
};

export const mobileCommons: ConnectorDefinition = {
  system: 'mobile-commons',
  name: 'Mobile Commons',
  vendor: 'Upland',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    username: email('E-mail'),
    password: secret('Password'),
    companyKey: text('Company key', { required: false, description: 'Only for logins with access to more than one company.' }),
  }),
  additionalSettings: {},
  objects: [
    { name: 'profiles', label: 'Profiles' },
    { name: 'campaigns', label: 'Campaigns' },
    { name: 'groups', label: 'Groups' },
    { name: 'messages', label: 'Messages' },
    { name: 'broadcasts', label: 'Broadcasts' },
  ],
  authentication: 'HTTP Basic with the user\'s e-mail and password at secure.mcommons.com/api (XML answers).',
  docs: 'https://mobilecommons.zendesk.com/hc/en-us/articles/202052534-REST-API',
  support: 'full',
};

const HUBSPOT_AUTH = [
  { value: 'private-app', label: 'Private app access token' },
  { value: 'oauth', label: 'Sign in with HubSpot (OAuth)' },
];

export const hubspot: ConnectorDefinition = {
  system: 'hubspot',
  name: 'HubSpot',
  vendor: 'HubSpot',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    // connections saved before OAuth came have no authentication type: a private app's token
    authenticationType: choice('Authentication type', HUBSPOT_AUTH, { required: false, defaultValue: 'private-app' }),
    accessToken: secret('Private app access token', {
      when: { field: 'authenticationType', is: ['private-app', ''] },
      pattern: { regex: /^pat-[a-z0-9]+-[0-9a-f-]+$/i, message: 'A private app access token starts with pat-.' },
    }),
    // signing in with OAuth, the server's app (OAUTH_CLIENT_ID_HUBSPOT) may stand in
    clientId: text('App client ID', { required: false, when: { field: 'authenticationType', is: ['oauth'] } }),
    clientSecret: secret('App client secret', { required: false, when: { field: 'authenticationType', is: ['oauth'] } }),
    refreshToken: secret('Refresh token', { required: false, when: { field: 'authenticationType', is: ['oauth'] }, description: 'Saved by Connect. An Administrator who already has one may paste it.' }),
  }),
  additionalSettings: {
    destination: settingsSchema({
      uniqueProperty: text('Unique property for upserts', {
        required: false, placeholder: 'member_id',
        description: 'Optional: the internal name of a property that requires unique values. New records are upserted by it (contacts by e-mail when none is named), so sending one again updates it instead of adding another.',
      }),
    }),
  },
  objects: [
    { name: 'contacts', label: 'Contacts' },
    { name: 'companies', label: 'Companies' },
    { name: 'deals', label: 'Deals' },
    { name: 'line_items', label: 'Line items' },
    { name: 'tickets', label: 'Tickets' },
  ],
  authentication: 'Bearer token at api.hubapi.com: a private app\'s access token, or OAuth 2.0 (Connect, with PKCE; the refresh token is exchanged at /oauth/v1/token).',
  docs: 'https://developers.hubspot.com/docs/api/private-apps',
  support: 'full',
};

export const ENGAGEMENT = [mailchimp, emma, encompass, engagingNetworks, everyaction, constantContact, mobileCommons, hubspot];
