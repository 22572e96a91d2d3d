/** The catalogue says per system what Tributary does with it, in the words of the README's connector table: every system reads or writes records, none is only tested. */
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/domain/connectors/catalogue.ts';
import { CAPABILITIES, capabilityOf } from '../../src/domain/connectors/types.ts';

describe('what each system does', () => {
  it('reads and writes records where the connector does; no system is left that Tributary only tests', () => {
    const does = Object.fromEntries(CATALOGUE.map((d) => [d.system, capabilityOf(d)]));
    expect(does).toMatchObject({
      'renxt': 'source and destination',
      'sandbox-crm': 'source and destination',
      'file-upload': 'source',
      'flat-file': 'source',
      'sftp': 'source',
      'http': 'source',
      'salesforce': 'source and destination',
      'fenxt': 'source and destination',
      'everyaction': 'source and destination',
      'engaging-networks': 'source and destination',
      'salesforce-marketing-cloud': 'source and destination',
      'mobile-commons': 'source and destination',
      'mailchimp': 'source and destination',
      'hubspot': 'source and destination',
      'constant-contact': 'source and destination',
      'emma': 'source and destination',
      'pardot': 'source and destination',
      'stripe': 'source',
      'gofundme-pro': 'source',
      'donordrive': 'source',
      'swoogo': 'source',
      'givecampus': 'source',
      'encompass': 'source',
      'bbcrm': 'source and destination',
      'altru': 'source and destination',
      'luminate-online': 'source and destination',
      'wealthengine': 'source and destination',
    });
    expect(Object.keys(does).sort()).toEqual(CATALOGUE.map((d) => d.system).sort());
    expect(CATALOGUE.filter((d) => d.support !== 'full').map((d) => d.system)).toEqual([]);
    expect(CAPABILITIES).not.toContain('connection test only');
    expect(Object.values(does).every((d) => (CAPABILITIES as readonly string[]).includes(d))).toBe(true);
  });
});
