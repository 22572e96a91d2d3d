/** The connector catalogue: every system of SPEC.md section 1, and the one schema per system that drives form, API and storage. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as v from 'valibot';
import { CATALOGUE, connectorFor, CreateDataSourceBody, isSystemId, SYSTEM_OPTIONS } from '../../src/domain/connectors/catalogue.ts';
import {
  CONNECTION_FIELD_MESSAGE, defaultValues, endpointChanged, endpointKeys, fieldApplies, formFields, secretKeys, validateSettings,
} from '../../src/domain/connectors/fields.ts';
import { FORBIDDEN_HEADER_MESSAGE } from '../../src/domain/connectors/headers.ts';
import { hasAdditionalSettings, SYSTEM_IDS } from '../../src/domain/connectors/types.ts';
import {
  CONNECTION_ERROR_CODES, connectionErrorTitle, isSalesforceReportId, ADD_DATE_FILTER, INVALID_REPORT_ID, MISSING_ACCESS,
} from '../../src/domain/connectionErrors.ts';
import { PROBLEM_TITLES } from '../../src/domain/errors.ts';

/**
 * SPEC.md section 1's sentence, copied word for word: the specification sits outside this
 * repository, and a test must pass in a plain clone.
 */
const SPEC_SUPPORTED_CONNECTORS = 'Supported connectors, each with its own settings: Mailchimp, GoFundMe Pro, Emma, Encompass, Engaging Networks, EveryAction, RENXT, BBCRM, Altru, Constant Contact, Salesforce, Pardot, Salesforce Marketing Cloud, Stripe, Secure FTP, Swoogo, Mobile Commons, GiveCampus, HubSpot, Luminate Online, FENXT, DonorDrive, a generic HTTP connector, file upload, flat file and WealthEngine.';

/** SPEC.md section 1's list, as written there. */
const SPEC_SYSTEMS: [string, string][] = [
  ['Mailchimp', 'mailchimp'], ['GoFundMe Pro', 'gofundme-pro'], ['Emma', 'emma'], ['Encompass', 'encompass'],
  ['Engaging Networks', 'engaging-networks'], ['EveryAction', 'everyaction'], ['RENXT', 'renxt'], ['BBCRM', 'bbcrm'],
  ['Altru', 'altru'], ['Constant Contact', 'constant-contact'], ['Salesforce', 'salesforce'], ['Pardot', 'pardot'],
  ['Salesforce Marketing Cloud', 'salesforce-marketing-cloud'], ['Stripe', 'stripe'], ['Secure FTP', 'sftp'], ['Swoogo', 'swoogo'],
  ['Mobile Commons', 'mobile-commons'], ['GiveCampus', 'givecampus'], ['HubSpot', 'hubspot'], ['Luminate Online', 'luminate-online'],
  ['FENXT', 'fenxt'], ['DonorDrive', 'donordrive'], ['a generic HTTP connector', 'http'], ['file upload', 'file-upload'],
  ['flat file', 'flat-file'], ['WealthEngine', 'wealthengine'],
];

describe('the catalogue', () => {
  it('has every system SPEC.md section 1 names, and the Sandbox CRM', () => {
    const line = SPEC_SUPPORTED_CONNECTORS;
    for (const [name] of SPEC_SYSTEMS) expect(line, name).toContain(name);
    expect(line.split(',').length).toBe(SPEC_SYSTEMS.length);
    expect(CATALOGUE.map((d) => d.system)).toEqual([...SPEC_SYSTEMS.map(([, id]) => id), 'sandbox-crm']);
    expect([...SYSTEM_IDS].sort()).toEqual(CATALOGUE.map((d) => d.system).sort());
  });

  it('says for each system whether it is a source, a destination or both, and whether it has additional settings', () => {
    for (const d of CATALOGUE) {
      expect(d.roles.source || d.roles.destination, d.system).toBe(true);
      expect(typeof hasAdditionalSettings(d, 'source')).toBe('boolean');
      if (!d.roles.source) expect(hasAdditionalSettings(d, 'source'), d.system).toBe(false);
      if (!d.roles.destination) expect(hasAdditionalSettings(d, 'destination'), d.system).toBe(false);
      expect(d.name.length).toBeGreaterThan(1);
      expect(d.authentication.length).toBeGreaterThan(10);
    }
    expect(connectorFor('sandbox-crm').roles).toEqual({ source: true, destination: true });
    expect(connectorFor('stripe').roles).toEqual({ source: true, destination: false });
    expect(hasAdditionalSettings(connectorFor('encompass'), 'source')).toBe(true);
    expect(hasAdditionalSettings(connectorFor('mailchimp'), 'destination')).toBe(true);
  });

  it('lists each system\'s objects; folder and upload sources find theirs at run time', () => {
    for (const d of CATALOGUE) {
      if (['sftp', 'flat-file', 'file-upload'].includes(d.system)) expect(d.objects).toEqual([]);
      else expect(d.objects.length, d.system).toBeGreaterThan(0);
      expect(new Set(d.objects.map((o) => o.name)).size).toBe(d.objects.length);
    }
  });

  it('asks for the credentials each vendor really requires', () => {
    const keys = (s: Parameters<typeof connectorFor>[0]) => formFields(connectorFor(s).settings).map((f) => `${f.key}:${f.kind}${f.secret ? '*' : ''}`);
    expect(keys('mailchimp')).toEqual(['authenticationType:select', 'apiKey:secret*', 'clientId:text', 'clientSecret:secret*', 'accessToken:secret*']);
    expect(keys('stripe')).toEqual(['secretKey:secret*']);
    expect(keys('hubspot')).toEqual(['authenticationType:select', 'accessToken:secret*', 'clientId:text', 'clientSecret:secret*', 'refreshToken:secret*']);
    expect(keys('sftp')).toEqual(['host:text', 'port:port', 'username:text', 'authenticationType:select', 'password:secret*', 'privateKey:key*', 'passphrase:secret*', 'folder:text', 'hostKeyFingerprint:text']);
    expect(keys('salesforce')).toEqual(['environment:select', 'authenticationType:select', 'customDomain:text', 'clientId:text', 'clientSecret:secret*', 'username:email', 'password:secret*', 'securityToken:secret*', 'refreshToken:secret*']);
    expect(keys('renxt')).toEqual(['clientId:text', 'clientSecret:secret*', 'subscriptionKey:secret*', 'refreshToken:secret*']);
    expect(keys('bbcrm')).toEqual(['url:url', 'database:text', 'username:text', 'password:secret*']);
    expect(keys('givecampus')).toEqual(['environment:select', 'customDomain:url', 'apiToken:secret*']);
    expect(keys('wealthengine')).toEqual(['environment:select', 'apiKey:secret*']);
    expect(keys('http').slice(0, 7)).toEqual(['url:url', 'authenticationType:select', 'username:text', 'password:secret*', 'token:secret*', 'apiKeyHeader:text', 'apiKey:secret*']);
    expect(keys('file-upload')).toEqual([]);
    // SPEC.md section 3's kinds of credential all appear somewhere
    const all = CATALOGUE.flatMap((d) => formFields(d.settings).map((f) => f.label.toLowerCase()));
    for (const kind of ['api key', 'client id', 'client secret', 'user name', 'password', 'url', 'access token', 'subdomain', 'port', 'ssh private key', 'authentication type', 'custom domain', 'environment']) {
      expect(all.some((l) => l.includes(kind)), kind).toBe(true);
    }
  });

  it('marks every credential as a secret, and nothing else', () => {
    for (const d of CATALOGUE) {
      for (const f of formFields(d.settings)) {
        // identifiers that happen to be called keys: not secrets
        const identifiers = ['swoogo.consumerKey', 'mobile-commons.companyKey', 'http.apiKeyHeader', 'sftp.hostKeyFingerprint',
          'constant-contact.clientId', 'salesforce.clientId', 'pardot.clientId'];
        const looksSecret = /secret|password|token|key|passphrase/i.test(f.label) && !identifiers.includes(`${d.system}.${f.key}`);
        expect(f.secret, `${d.system}.${f.key}`).toBe(looksSecret);
      }
      expect(secretKeys(d.settings)).toEqual(formFields(d.settings).filter((f) => f.secret).map((f) => f.key));
    }
  });

  it('offers the systems by name for the picker', () => {
    expect(SYSTEM_OPTIONS).toHaveLength(27);
    expect(SYSTEM_OPTIONS.map((o) => o.label)).toEqual([...SYSTEM_OPTIONS.map((o) => o.label)].sort((a, b) => a.localeCompare(b)));
    expect(isSystemId('renxt')).toBe(true);
    expect(isSystemId('myspace')).toBe(false);
  });
});

describe('settings schemas', () => {
  it('word for word: "Field is required and can be 150 characters at most." for an empty or a long field', () => {
    for (const d of CATALOGUE) {
      for (const f of formFields(d.settings)) {
        if (!f.required || f.when || f.requiredWhen || f.kind === 'select' || f.kind === 'key') continue;
        const values = { ...defaultValues(d.settings), [f.key]: '' };
        const empty = validateSettings(d.settings, values);
        expect(empty.success, `${d.system}.${f.key}`).toBe(false);
        if (!empty.success) expect(empty.errors[f.key]).toBe(CONNECTION_FIELD_MESSAGE);
        const long = validateSettings(d.settings, { ...values, [f.key]: 'a'.repeat(151) });
        if (!long.success) expect(long.errors[f.key], `${d.system}.${f.key}`).toBe(CONNECTION_FIELD_MESSAGE);
      }
    }
  });

  it('accepts 150 characters and refuses 151, for any text', () => {
    const s = connectorFor('emma').settings;
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 200 }).filter((x) => x.trim() === x && x.length > 0 && !/[\u0000-\u001f\u007f]/.test(x)), (name) => {
      const r = validateSettings(s, { accountId: '12', publicApiKey: name, privateApiKey: 'p' });
      expect(r.success).toBe(name.length <= 150);
    }));
  });

  it('checks URLs and e-mail addresses', () => {
    const http = connectorFor('http').settings;
    expect(validateSettings(http, { url: 'ftp://x.org', authenticationType: 'none', paging: 'none' })).toMatchObject({ success: false, errors: { url: expect.stringMatching(/valid URL/) } });
    expect(validateSettings(http, { url: 'https://api.example.org/v1', authenticationType: 'none', paging: 'none' }).success).toBe(true);
    const mc = connectorFor('mobile-commons').settings;
    expect(validateSettings(mc, { username: 'someone', password: 'x' })).toMatchObject({ success: false, errors: { username: expect.stringMatching(/e-mail/) } });
    expect(validateSettings(mc, { username: 'sms@riverside.org', password: 'x' }).success).toBe(true);
  });

  it('requires a field only while it applies, and drops values of fields that do not apply', () => {
    const s = connectorFor('sftp').settings;
    const base = { host: 'sftp.example.org', port: '22', username: 'u', folder: '/' };
    expect(validateSettings(s, { ...base, authenticationType: 'ssh-key' })).toMatchObject({ success: false, errors: { privateKey: expect.any(String) } });
    const ok = validateSettings(s, { ...base, authenticationType: 'password', password: 'p', privateKey: 'stale' });
    expect(ok).toEqual({ success: true, values: { ...base, authenticationType: 'password', password: 'p' } });
    const fields = formFields(s);
    expect(fields.filter((f) => fieldApplies(f, { authenticationType: 'ssh-key' })).map((f) => f.key)).toContain('privateKey');
    expect(fields.filter((f) => fieldApplies(f, { authenticationType: 'password' })).map((f) => f.key)).not.toContain('privateKey');
    // Salesforce: My Domain shows always, and is required for client credentials
    const sf = connectorFor('salesforce').settings;
    const cc = { environment: 'production', authenticationType: 'client-credentials', clientId: 'a', clientSecret: 'b' };
    expect(validateSettings(sf, cc)).toMatchObject({ success: false, errors: { customDomain: CONNECTION_FIELD_MESSAGE } });
    expect(validateSettings(sf, { ...cc, customDomain: 'riverside.my.salesforce.com' }).success).toBe(true);
  });

  it('refuses connection and cloud metadata headers as the HTTP connector\'s API key header', () => {
    const http = connectorFor('http').settings;
    const withHeader = (apiKeyHeader: string) => validateSettings(http, { url: 'https://api.example.org/v1', authenticationType: 'api-key', apiKeyHeader, apiKey: 'k', paging: 'none' });
    for (const header of ['Metadata-Flavor', 'metadata', 'X-aws-ec2-metadata-token', 'X-Google-Metadata-Request', 'Host', 'Connection',
      'Transfer-Encoding', 'Proxy-Authorization', 'Proxy-Connection', 'Keep-Alive', 'Upgrade', 'TE', 'Content-Length', 'X-Forwarded-For']) {
      expect(withHeader(header), header).toEqual({ success: false, errors: { apiKeyHeader: FORBIDDEN_HEADER_MESSAGE } });
    }
    for (const header of ['X-API-Key', 'Authorization', 'Api-Token', 'X-Metadata-Version']) expect(withHeader(header).success, header).toBe(true);
  });

  it('marks the settings that say where Tributary connects, in the catalogue schemas', () => {
    const marked = Object.fromEntries(CATALOGUE.map((d) => [d.system, endpointKeys(d.settings)]).filter(([, keys]) => keys!.length > 0));
    expect(marked).toEqual({
      bbcrm: ['url'], altru: ['url'], 'luminate-online': ['url'], salesforce: ['customDomain'], 'salesforce-marketing-cloud': ['subdomain'],
      sftp: ['host', 'port'], givecampus: ['customDomain'], donordrive: ['siteUrl'], http: ['url'],
    });
    // every URL a user types is one of them
    for (const d of CATALOGUE) for (const f of formFields(d.settings)) if (f.kind === 'url') expect(f.endpoint, `${d.system}.${f.key}`).toBe(true);
    const sftp = connectorFor('sftp').settings;
    expect(endpointChanged(sftp, { host: 'a.example.org', port: '22' }, { host: 'a.example.org', port: '22', folder: '/x' })).toBe(false);
    expect(endpointChanged(sftp, { host: 'a.example.org', port: '22' }, { host: 'b.example.org', port: '22' })).toBe(true);
    expect(endpointChanged(sftp, { host: 'a.example.org', port: '22' }, { host: 'a.example.org', port: '2222' })).toBe(true);
  });

  it('lets an edit keep saved secrets without sending them', () => {
    const s = connectorFor('stripe').settings;
    expect(validateSettings(s, {}).success).toBe(false);
    expect(validateSettings(s, {}, ['secretKey']).success).toBe(true);
  });

  it('checks the API bodies: a known system and a display name of at most 150 characters', () => {
    expect(v.safeParse(CreateDataSourceBody, { system: 'stripe', displayName: 'Stripe' }).success).toBe(true);
    expect(v.safeParse(CreateDataSourceBody, { system: 'geocities', displayName: 'x' }).success).toBe(false);
    const long = v.safeParse(CreateDataSourceBody, { system: 'stripe', displayName: 'x'.repeat(151) });
    expect(long.success).toBe(false);
    if (!long.success) expect(long.issues[0]!.message).toBe(CONNECTION_FIELD_MESSAGE);
  });
});

describe('connection errors', () => {
  it('titles the four codes Connection Failed or Connection Error', () => {
    expect(CONNECTION_ERROR_CODES).toEqual(['clientdatasource-connection-failed', 'formula-connection-error', 'processing-error', 'unknown']);
    expect(connectionErrorTitle('clientdatasource-connection-failed')).toBe('Connection Failed');
    for (const code of ['formula-connection-error', 'processing-error', 'unknown', 'something-else', undefined]) expect(connectionErrorTitle(code)).toBe('Connection Error');
  });
  it('has the Salesforce report messages word for word, and checks a report id\'s form', () => {
    expect([INVALID_REPORT_ID, ADD_DATE_FILTER, MISSING_ACCESS]).toEqual(['Invalid Report ID', 'Add Date Filter', 'Missing Access']);
    expect(PROBLEM_TITLES['invalid-report-id']).toBe('Invalid Report ID');
    expect(isSalesforceReportId('00O5g00000AbCdE')).toBe(true);
    expect(isSalesforceReportId('00O5g00000AbCdEAAA')).toBe(true);
    expect(isSalesforceReportId('0015g00000AbCdEAAA')).toBe(false);
    expect(isSalesforceReportId('00O5g00000AbCd')).toBe(false);
  });
});
