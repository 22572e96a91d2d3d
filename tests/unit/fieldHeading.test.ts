/** Field names as headings: words with one capital, acronyms kept, Salesforce's custom suffix dropped. */
import { describe, expect, it } from 'vitest';
import { fieldHeading } from '../../src/domain/formula/fieldHeading.ts';

describe('a field heading', () => {
  it.each([
    ['firstName', 'First name'], ['postalCode', 'Postal code'], ['MailingPostalCode', 'Mailing postal code'], ['addressLine1', 'Address line 1'],
    ['lookupId', 'Lookup ID'], ['Donor_Level__c', 'Donor level'], ['HTMLBody', 'HTML body'], ['e-mail', 'E-mail'], ['email', 'Email'], ['x', 'X'],
    ['First name', 'First name'], ['FIRST_NAME', 'First name'], ['CONSTITUENT_ID', 'Constituent ID'], ['SKU', 'SKU'],
  ])('%s reads %s', (name, heading) => {
    expect(fieldHeading(name)).toBe(heading);
  });
});
