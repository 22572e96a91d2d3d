/** Giving, payments, events and screening systems. */
import { ENVIRONMENT_OPTIONS, choice, secret, settingsSchema, text, url } from './fields.ts';
import type { ConnectorDefinition } from './types.ts';

export const gofundmePro: ConnectorDefinition = {
  system: 'gofundme-pro',
  name: 'GoFundMe Pro',
  vendor: 'GoFundMe (formerly Classy)',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    clientId: text('Client ID'),
    clientSecret: secret('Client secret'),
    organizationId: text('Organization ID', { pattern: { regex: /^\d+$/, message: 'The organization ID is a number.' } }),
  }),
  additionalSettings: {},
  objects: [
    { name: 'transactions', label: 'Transactions' },
    { name: 'recurring-donation-plans', label: 'Recurring donation plans' },
    { name: 'supporters', label: 'Supporters' },
    { name: 'campaigns', label: 'Campaigns' },
    { name: 'fundraising-pages', label: 'Fundraising pages' },
  ],
  authentication: 'OAuth 2.0 client credentials at api.classy.org/oauth2/auth; API 2.0 calls carry the bearer token.',
  docs: 'https://developers.classy.org/overview/authentication',
  support: 'full',
};

export const stripe: ConnectorDefinition = {
  system: 'stripe',
  name: 'Stripe',
  vendor: 'Stripe',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    secretKey: secret('Secret or restricted key', {
      pattern: { regex: /^(sk|rk)_(live|test)_[A-Za-z0-9]{10,}$/, message: 'A Stripe key starts with sk_live_, sk_test_, rk_live_ or rk_test_.' },
      description: 'A restricted key with read access is enough. Test-mode keys read test data.',
    }),
  }),
  additionalSettings: {},
  objects: [
    { name: 'charges', label: 'Charges' },
    { name: 'payment_intents', label: 'Payment intents' },
    { name: 'customers', label: 'Customers' },
    { name: 'subscriptions', label: 'Subscriptions' },
    { name: 'invoices', label: 'Invoices' },
    { name: 'refunds', label: 'Refunds' },
    { name: 'disputes', label: 'Disputes' },
    { name: 'payouts', label: 'Payouts' },
    { name: 'balance_transactions', label: 'Balance transactions' },
  ],
  authentication: 'Bearer secret key (or restricted read key) at api.stripe.com/v1.',
  docs: 'https://docs.stripe.com/api/authentication',
  support: 'full',
};

export const swoogo: ConnectorDefinition = {
  system: 'swoogo',
  name: 'Swoogo',
  vendor: 'Swoogo',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    consumerKey: text('API key (consumer key)'),
    consumerSecret: secret('API secret (consumer secret)'),
  }),
  additionalSettings: { source: settingsSchema({ eventId: text('Event ID', { required: false, description: 'Leave empty for all events.' }) }) },
  objects: [
    { name: 'events', label: 'Events' },
    { name: 'registrants', label: 'Registrants' },
    { name: 'sessions', label: 'Sessions' },
    { name: 'speakers', label: 'Speakers' },
    { name: 'sponsors', label: 'Sponsors' },
    { name: 'transactions', label: 'Transactions' },
  ],
  authentication: 'OAuth 2.0 client credentials: HTTP Basic of key and secret at api.swoogo.com/api/v1/oauth2/token.json.',
  docs: 'https://developer.swoogo.com/api-reference/introduction',
  support: 'full',
};

export const givecampus: ConnectorDefinition = {
  system: 'givecampus',
  name: 'GiveCampus',
  vendor: 'GiveCampus',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    environment: choice('Environment', ENVIRONMENT_OPTIONS, { description: 'Tokens work only in the environment that issued them.' }),
    customDomain: url('Custom domain', { required: false, placeholder: 'https://giving.example.edu', description: 'Only if your school fronts GiveCampus with its own domain.' }),
    apiToken: secret('API token', { description: 'School Dashboard > Integrations > API Keys.' }),
  }),
  additionalSettings: {},
  objects: [
    { name: 'gifts', label: 'Gifts (donations)' },
    { name: 'donors', label: 'Donors (the people on the gifts)' },
  ],
  authentication: 'Bearer API token at www.givecampus.com/api (sandbox.givecampus.com/api in the sandbox, or your custom domain).',
  docs: 'https://support.givecampus.com/hc/en-us/articles/28763492065815-GiveCampus-Gift-API-Standard-Field-Definitions',
  support: 'full',
};

export const donordrive: ConnectorDefinition = {
  system: 'donordrive',
  name: 'DonorDrive',
  vendor: 'DonorDrive',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    siteUrl: url('Site URL or custom domain', { placeholder: 'https://yourorg.donordrive.com' }),
    apiToken: secret('API token'),
  }),
  additionalSettings: { source: settingsSchema({ eventId: text('Event ID', { required: false }) }) },
  objects: [
    { name: 'events', label: 'Events' },
    { name: 'participants', label: 'Participants' },
    { name: 'teams', label: 'Teams' },
    { name: 'donations', label: 'Donations' },
  ],
  authentication: 'Public API at your DonorDrive site\'s /api (version 1.1); the API token, when given, as a bearer token.',
  docs: 'https://github.com/DonorDrive/PublicAPI',
  support: 'full',
};

export const wealthengine: ConnectorDefinition = {
  system: 'wealthengine',
  name: 'WealthEngine',
  vendor: 'Altrata',
  roles: { source: true, destination: true },
  settings: settingsSchema({
    environment: choice('Environment', ENVIRONMENT_OPTIONS, { description: 'Sandbox: api-sandbox.wealthengine.com.' }),
    apiKey: secret('API key'),
  }),
  additionalSettings: {
    destination: settingsSchema({
      profile: choice('Profile', [{ value: 'basic', label: 'Basic' }, { value: 'full', label: 'Full' }]),
    }),
  },
  objects: [
    { name: 'profiles', label: 'Wealth profiles' },
    // as a source: the people screened through this data source, with the profiles found
    { name: 'screenings', label: 'Screenings (people screened, with their profiles)' },
  ],
  authentication: 'Header "Authorization: APIKey {key}" at api.wealthengine.com/v1 (api-sandbox.wealthengine.com in the sandbox).',
  docs: 'https://dev.wealthengine.com/api',
  support: 'full',
  enrichment: 'WealthEngine screens people: it keeps no records of ours to match against, so its search finds nobody and every record is routed as new, to be screened. '
    + 'Sending a record looks the person up (by e-mail, else phone, else postal address, with the name); the profile found, or "No match", becomes the record\'s destination record. '
    + 'Keep one scenario on the e-mail address: it is saved with the formula and never finds anyone. '
    + 'The profiles found go on from here: a second formula whose source is this WealthEngine connection\'s screenings reads each person screened (their own values, lookup ID and e-mail included) with the profile found, '
    + 'to be matched in your CRM and mapped onto its fields (a Raiser\'s Edge NXT custom field, for instance). People with no match are not passed on.',
};

export const FUNDRAISING = [gofundmePro, stripe, swoogo, givecampus, donordrive, wealthengine];
