/** Secure FTP, the generic HTTP connector, file upload, flat file, and the Sandbox CRM kept in Tributary's own database. */
import { choice, port, privateKey, secret, settingsSchema, text, url } from './fields.ts';
import { FORBIDDEN_HEADER_MESSAGE, isForbiddenRequestHeader } from './headers.ts';
import type { ConnectorDefinition } from './types.ts';

const SFTP_AUTH = [
  { value: 'password', label: 'Password' },
  { value: 'ssh-key', label: 'SSH key' },
];

const SFTP_AFTER_READ = [
  { value: 'leave', label: 'Leave it in the folder' },
  { value: 'move', label: 'Move it to another folder' },
  { value: 'delete', label: 'Delete it from the server' },
];

export const sftp: ConnectorDefinition = {
  system: 'sftp',
  name: 'Secure FTP',
  vendor: 'SFTP server',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    host: text('Host', { endpoint: true, pattern: { regex: /^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/, message: 'Enter a host name or IP address, without sftp:// or a path.' }, placeholder: 'sftp.example.org' }),
    port: port('Port', { endpoint: true, defaultValue: '22' }),
    username: text('User name'),
    authenticationType: choice('Authentication type', SFTP_AUTH),
    password: secret('Password', { when: { field: 'authenticationType', is: ['password'] } }),
    privateKey: privateKey('SSH private key', { when: { field: 'authenticationType', is: ['ssh-key'] }, description: 'PEM or OpenSSH private key; its public key must be in the server\'s authorized_keys.' }),
    passphrase: secret('Key passphrase', { required: false, when: { field: 'authenticationType', is: ['ssh-key'] } }),
    folder: text('Folder', { defaultValue: '/', pattern: { regex: /^\/[^\\]*$/, message: 'Enter an absolute folder path, starting with /.' } }),
    hostKeyFingerprint: text('Host key fingerprint', {
      required: false,
      pattern: { regex: /^SHA256:[A-Za-z0-9+/]{43}=?$/, message: 'Enter the SHA256 fingerprint as ssh-keygen -l prints it (SHA256:...).' },
      description: 'Optional: when set, Tributary connects only to a server presenting this key.',
    }),
  }),
  additionalSettings: {
    // which files a formula reads is its object (a file, or a pattern such as donations-*.csv);
    // these say what becomes of a file once its rows are read
    source: settingsSchema({
      afterRead: choice('After a file is read', SFTP_AFTER_READ, {
        required: false, description: 'Files already read are never read again unless they change.',
      }),
      processedFolder: text('Move processed files to', {
        when: { field: 'afterRead', is: ['move'] }, placeholder: '/processed',
        pattern: { regex: /^\/[^\\]*$/, message: 'Enter an absolute folder path, starting with /.' },
        description: 'A folder on the same server; it must exist and the user must be able to write to it.',
      }),
    }),
  },
  objects: [],
  authentication: 'SSH: password or public key authentication; files .csv, .xlsx and .xls in the folder.',
  docs: 'https://datatracker.ietf.org/doc/html/draft-ietf-secsh-filexfer-02',
  support: 'full',
};

export const HTTP_AUTH = [
  { value: 'none', label: 'None' },
  { value: 'basic', label: 'Basic (user name and password)' },
  { value: 'bearer', label: 'Bearer token' },
  { value: 'api-key', label: 'API key header' },
];

export const HTTP_PAGING = [
  { value: 'none', label: 'No paging' },
  { value: 'page', label: 'Page number' },
  { value: 'offset', label: 'Offset and limit' },
  { value: 'next-link', label: 'Next link in the body' },
  { value: 'cursor', label: 'Cursor' },
];

const digits = { regex: /^\d{1,4}$/, message: 'Enter a whole number.' };
const name = { regex: /^[A-Za-z0-9_.[\]-]+$/, message: 'Letters, digits, dots, dashes and underscores only.' };

export const http: ConnectorDefinition = {
  system: 'http',
  name: 'HTTP (JSON API)',
  vendor: 'Any JSON API',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    url: url('URL', { placeholder: 'https://api.example.org/v1/donations' }),
    authenticationType: choice('Authentication type', HTTP_AUTH),
    username: text('User name', { when: { field: 'authenticationType', is: ['basic'] } }),
    password: secret('Password', { when: { field: 'authenticationType', is: ['basic'] } }),
    token: secret('Access token', { when: { field: 'authenticationType', is: ['bearer'] } }),
    apiKeyHeader: text('API key header', {
      when: { field: 'authenticationType', is: ['api-key'] }, defaultValue: 'X-API-Key',
      pattern: { regex: /^[A-Za-z0-9-]+$/, message: 'A header name has letters, digits and dashes only.' },
      check: { test: (name) => !isForbiddenRequestHeader(name), message: FORBIDDEN_HEADER_MESSAGE },
    }),
    apiKey: secret('API key', { when: { field: 'authenticationType', is: ['api-key'] } }),
    recordsPath: text('Records path', { required: false, pattern: name, placeholder: 'data', description: 'Where the array of records sits in each answer; empty when the answer is the array.' }),
    paging: choice('Paging', HTTP_PAGING),
    pageParam: text('Page parameter', { when: { field: 'paging', is: ['page'] }, defaultValue: 'page', pattern: name }),
    offsetParam: text('Offset parameter', { when: { field: 'paging', is: ['offset'] }, defaultValue: 'offset', pattern: name }),
    limitParam: text('Page size parameter', { required: false, when: { field: 'paging', is: ['page', 'offset'] }, defaultValue: 'limit', pattern: name }),
    pageSize: text('Page size', { required: false, when: { field: 'paging', is: ['page', 'offset'] }, defaultValue: '100', pattern: digits }),
    nextLinkPath: text('Next link path', { when: { field: 'paging', is: ['next-link'] }, defaultValue: 'links.next', pattern: name }),
    cursorParam: text('Cursor parameter', { when: { field: 'paging', is: ['cursor'] }, defaultValue: 'cursor', pattern: name }),
    cursorPath: text('Next cursor path', { when: { field: 'paging', is: ['cursor'] }, defaultValue: 'next_cursor', pattern: name }),
    sinceParam: text('Watermark parameter', { required: false, pattern: name, placeholder: 'updated_since', description: 'Query parameter that asks for records changed since the last pull.' }),
    watermarkField: text('Watermark field', { required: false, pattern: name, placeholder: 'updated_at', description: 'Record field holding when the record last changed.' }),
  }),
  additionalSettings: {
    // the watermark parameter and field belong to the connection (they describe its API); what a
    // formula chooses is where its first pull starts and which of the records it wants
    source: settingsSchema({
      changedAfter: text('Only records changed after', {
        required: false, placeholder: '2026-01-31',
        pattern: { regex: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, message: 'Enter a date as YYYY-MM-DD.' },
        description: 'The first pull asks only for records changed after this date (sent as the connection\'s watermark parameter); later pulls continue from the last record read. Empty: every record.',
      }),
      query: text('Extra query parameters', {
        required: false, placeholder: 'status=paid&campaign=spring',
        pattern: { regex: /^[A-Za-z0-9_.[\]-]+=[^&=\s]*(&[A-Za-z0-9_.[\]-]+=[^&=\s]*)*$/, message: 'Write name=value pairs joined by &, without spaces.' },
        description: 'Added to every request of this formula, for example to ask for one kind of record.',
      }),
    }),
  },
  objects: [{ name: 'records', label: 'Records' }],
  authentication: 'None, HTTP Basic, a bearer token or an API key header, over HTTPS.',
  docs: 'https://www.rfc-editor.org/rfc/rfc9110#name-authentication',
  support: 'full',
};

export const fileUpload: ConnectorDefinition = {
  system: 'file-upload',
  name: 'File upload',
  vendor: 'Tributary',
  roles: { source: true, destination: false },
  settings: settingsSchema({}),
  additionalSettings: {},
  objects: [],
  authentication: 'None: files are uploaded in the browser (CSV or Excel, up to 15MB).',
  docs: '',
  support: 'full',
};

export const flatFile: ConnectorDefinition = {
  system: 'flat-file',
  name: 'Flat file',
  vendor: 'Tributary',
  roles: { source: true, destination: false },
  settings: settingsSchema({
    folder: text('Folder', {
      defaultValue: 'incoming',
      pattern: { regex: /^[A-Za-z0-9 _-]{1,64}$/, message: 'Letters, digits, spaces, dashes and underscores only.' },
      description: 'Files delivered to the flat file service under this name are read in order of arrival.',
    }),
  }),
  additionalSettings: {},
  objects: [],
  authentication: 'None: files are delivered to Tributary\'s flat file service.',
  docs: '',
  support: 'full',
};

/** what a CRM destination does to a matched record's values (the Sandbox CRM, Raiser's Edge NXT) */
export const SANDBOX_ON_MATCH = [
  { value: 'overwrite', label: 'Overwrite existing values' },
  { value: 'fill-blanks', label: 'Fill blank fields only' },
];
export const SANDBOX_BLANKS = [
  { value: 'keep', label: 'Keep the existing value' },
  { value: 'clear', label: 'Clear the existing value' },
];

export const sandboxCrm: ConnectorDefinition = {
  system: 'sandbox-crm',
  name: 'Sandbox CRM',
  vendor: 'Tributary',
  roles: { source: true, destination: true },
  settings: settingsSchema({}),
  additionalSettings: {
    // optional with defaults, so a destination saved before these are chosen writes as a CRM usually does
    destination: settingsSchema({
      onMatch: choice('When a record matches', SANDBOX_ON_MATCH, {
        required: false, description: 'What a record sent to an existing constituent or gift does to the values already there.',
      }),
      blankValues: choice('Blank incoming values', SANDBOX_BLANKS, {
        required: false, when: { field: 'onMatch', is: ['overwrite'] },
        description: 'Whether an empty value in the record clears the value already there.',
      }),
    }),
  },
  objects: [
    { name: 'constituents', label: 'Constituents' },
    { name: 'gifts', label: 'Gifts' },
  ],
  authentication: 'None: a practice CRM kept in Tributary\'s own database, one per tenant.',
  docs: '',
  support: 'full',
};

export const FILES_AND_GENERIC = [sftp, http, fileUpload, flatFile, sandboxCrm];
