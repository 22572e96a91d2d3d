/** The Sandbox CRM's objects and their fields. */
import { sandboxCrm } from '../../../src/domain/connectors/files.ts';
import type { FieldInfo, FieldReference } from '../connector.ts';

export const sandbox = {
  objects: sandboxCrm.objects,
  fields: {
    constituents: [
      { name: 'lookupId', label: 'Lookup ID', type: 'string', searchable: true },
      { name: 'title', label: 'Title', type: 'string', searchable: true },
      { name: 'firstName', label: 'First name', type: 'string', searchable: true },
      { name: 'lastName', label: 'Last name', type: 'string', required: true, searchable: true },
      { name: 'middleName', label: 'Middle name', type: 'string' },
      { name: 'preferredName', label: 'Preferred name', type: 'string' },
      { name: 'email', label: 'E-mail', type: 'email', searchable: true },
      { name: 'phone', label: 'Phone', type: 'phone', searchable: true },
      { name: 'addressLine1', label: 'Address line 1', type: 'string', searchable: true },
      { name: 'addressLine2', label: 'Address line 2', type: 'string' },
      { name: 'city', label: 'City', type: 'string', searchable: true },
      { name: 'state', label: 'State', type: 'string', searchable: true },
      { name: 'postalCode', label: 'Postal code', type: 'string', searchable: true },
      { name: 'country', label: 'Country', type: 'string' },
      { name: 'createdOn', label: 'Created on', type: 'datetime', readOnly: true },
      { name: 'modifiedOn', label: 'Modified on', type: 'datetime', readOnly: true },
    ],
    gifts: [
      { name: 'lookupId', label: 'Lookup ID', type: 'string', searchable: true },
      { name: 'constituentId', label: 'Constituent ID', type: 'string' },
      { name: 'constituentLookupId', label: 'Constituent lookup ID', type: 'string', required: true, searchable: true },
      { name: 'amount', label: 'Amount', type: 'number', required: true, searchable: true },
      { name: 'date', label: 'Gift date', type: 'date', required: true, searchable: true },
      { name: 'type', label: 'Type', type: 'string' },
      { name: 'fund', label: 'Fund', type: 'string', searchable: true },
      { name: 'campaign', label: 'Campaign', type: 'string', searchable: true },
      { name: 'appeal', label: 'Appeal', type: 'string' },
      { name: 'paymentMethod', label: 'Payment method', type: 'string' },
      { name: 'createdOn', label: 'Created on', type: 'datetime', readOnly: true },
      { name: 'modifiedOn', label: 'Modified on', type: 'datetime', readOnly: true },
    ],
  } satisfies Record<'constituents' | 'gifts', FieldInfo[]>,
  /** a gift is written against its constituent, found by lookup id */
  references: {
    constituents: [],
    gifts: [{ field: 'constituentLookupId', object: 'constituents', by: 'lookupId', label: 'constituent' }],
  } satisfies Record<'constituents' | 'gifts', FieldReference[]>,
};
