/**
 * The mapping a new formula starts with: destination fields from source fields of the same name,
 * else of the same concept; each source field once; nothing guessed from an unrelated name.
 */
import { describe, expect, it } from 'vitest';
import { suggestedMapping } from '../../src/domain/formula/suggestedMapping.ts';
import { sandbox } from '../../server/connectors/sandboxCrm/fields.ts';

const names = (...n: string[]) => n.map((name) => ({ name }));
const asRecord = (m: ReturnType<typeof suggestedMapping>) => Object.fromEntries(m.map((f) => [f.destination, f.source]));

describe('the suggested mapping', () => {
  it('maps a spreadsheet of supporters into the Sandbox CRM by names and spellings', () => {
    const m = suggestedMapping(sandbox.fields.constituents, names('First name', 'LAST_NAME', 'E-mail address', 'Home phone', 'Postcode', 'Street', 'Town', 'Gift amount'));
    expect(asRecord(m)).toEqual({
      firstName: 'First name', lastName: 'LAST_NAME', email: 'E-mail address', phone: 'Home phone', postalCode: 'Postcode', addressLine1: 'Street',
      // a town is a city (the concept matching's Name and city scenario searches by)
      city: 'Town',
    });
    // in the destination's order, each from the source
    expect(m.map((f) => f.destination)).toEqual(['firstName', 'lastName', 'email', 'phone', 'addressLine1', 'city', 'postalCode']);
    expect(m.every((f) => f.kind === 'source')).toBe(true);
  });

  it('prefers the field of the same name to one of the same concept, and uses each source field once', () => {
    const m = asRecord(suggestedMapping(sandbox.fields.constituents, names('Address', 'Address line 1', 'Address line 2', 'City')));
    expect(m).toEqual({ addressLine1: 'Address line 1', addressLine2: 'Address line 2', city: 'City' });
    const twice = suggestedMapping(names('email', 'workEmail'), names('Email'));
    expect(twice).toEqual([{ destination: 'email', kind: 'source', source: 'Email' }]);
  });

  it('finds a destination field by its label (Salesforce\'s MailingPostalCode)', () => {
    const m = suggestedMapping([{ name: 'MailingPostalCode', label: 'Mailing Zip/Postal Code' }, { name: 'FirstName', label: 'First Name' }], names('ZIP', 'first'));
    expect(asRecord(m)).toEqual({ MailingPostalCode: 'ZIP', FirstName: 'first' });
  });

  it('takes no field of the same name whose label says it is something else, and reads a vendor\'s fields by their labels', () => {
    const stripe = [
      { name: 'state', label: 'Paid, refunded, partly refunded or disputed' }, { name: 'customer_email', label: 'Customer e-mail' },
      { name: 'customer_phone', label: 'Customer phone' }, { name: 'billing_address.state', label: 'Billing address state' },
    ];
    expect(asRecord(suggestedMapping(sandbox.fields.constituents, stripe))).toEqual({ email: 'customer_email', phone: 'customer_phone' });
    // a label that agrees keeps the match by name
    expect(asRecord(suggestedMapping(sandbox.fields.constituents, [{ name: 'state', label: 'State or province' }]))).toEqual({ state: 'state' });
  });

  it('guesses nothing from names that say nothing', () => {
    expect(suggestedMapping(sandbox.fields.constituents, names('Column A', 'Notes', 'Amount'))).toEqual([]);
  });
});
