/**
 * Raiser's Edge NXT's constituents and gifts as Tributary's fields: the API's records flattened
 * (a constituent with its primary e-mail, phone and preferred address; a gift with its first
 * split's fund, campaign and appeal), named as the Sandbox CRM names them so a formula reads the
 * same either way, and turned back into the API's bodies for writes.
 */
import type { FieldInfo, FieldReference, SourceRecord } from '../connector.ts';

export type RenxtObject = 'constituents' | 'gifts';

export const RENXT_FIELDS: Record<RenxtObject, FieldInfo[]> = {
  constituents: [
    { name: 'id', label: 'System record ID', type: 'string', searchable: true, readOnly: true },
    { name: 'lookupId', label: 'Lookup ID', type: 'string', searchable: true },
    { name: 'type', label: 'Constituent type', type: 'string' },
    { name: 'title', label: 'Title', type: 'string', searchable: true },
    { name: 'firstName', label: 'First name', type: 'string', searchable: true },
    { name: 'middleName', label: 'Middle name', type: 'string' },
    { name: 'lastName', label: 'Last name', type: 'string', required: true, searchable: true },
    { name: 'preferredName', label: 'Nickname', type: 'string' },
    { name: 'email', label: 'E-mail (primary)', type: 'email', searchable: true },
    { name: 'phone', label: 'Phone (primary)', type: 'phone', searchable: true },
    { name: 'addressLine1', label: 'Address line 1 (preferred address)', type: 'string', searchable: true },
    { name: 'addressLine2', label: 'Address line 2', type: 'string' },
    { name: 'city', label: 'City', type: 'string', searchable: true },
    { name: 'state', label: 'State', type: 'string', searchable: true },
    { name: 'postalCode', label: 'ZIP', type: 'string', searchable: true },
    { name: 'country', label: 'Country', type: 'string' },
    { name: 'dateAdded', label: 'Date added', type: 'datetime', readOnly: true },
    { name: 'dateModified', label: 'Date changed', type: 'datetime', readOnly: true },
  ],
  gifts: [
    { name: 'id', label: 'System record ID', type: 'string', readOnly: true },
    { name: 'lookupId', label: 'Gift ID', type: 'string' },
    { name: 'constituentId', label: 'Constituent system record ID', type: 'string', searchable: true },
    { name: 'constituentLookupId', label: 'Constituent lookup ID', type: 'string', searchable: true },
    { name: 'amount', label: 'Amount', type: 'number', required: true, searchable: true },
    { name: 'date', label: 'Gift date', type: 'date', required: true, searchable: true },
    { name: 'type', label: 'Gift type', type: 'string' },
    { name: 'fund', label: 'Fund (name or system record ID)', type: 'string', required: true },
    { name: 'campaign', label: 'Campaign (name or system record ID)', type: 'string' },
    { name: 'appeal', label: 'Appeal (name or system record ID)', type: 'string' },
    { name: 'paymentMethod', label: 'Payment method', type: 'string' },
    // the gift batch a new gift goes into is named by the destination's gift batch prefix
    { name: 'batchNumber', label: 'Batch number', type: 'string', readOnly: true },
    { name: 'dateModified', label: 'Date changed', type: 'datetime', readOnly: true },
  ],
};

/** a gift is written against its constituent: by system record id, or found by lookup id */
export const RENXT_REFERENCES: Record<RenxtObject, FieldReference[]> = {
  constituents: [],
  gifts: [
    { field: 'constituentId', object: 'constituents', by: 'id', label: 'constituent' },
    { field: 'constituentLookupId', object: 'constituents', by: 'lookupId', label: 'constituent' },
  ],
};

type Obj = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const clean = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ''));

export function constituentRecord(c: Obj): SourceRecord {
  const email = c.email as Obj | undefined;
  const phone = c.phone as Obj | undefined;
  const address = c.address as Obj | undefined;
  const lines = (str(address?.address_lines) ?? '').split(/\r?\n/);
  return {
    id: String(c.id),
    fields: clean({
      id: str(c.id), lookupId: str(c.lookup_id), type: str(c.type), title: str(c.title), firstName: str(c.first), middleName: str(c.middle),
      lastName: str(c.last) ?? str(c.name), preferredName: str(c.preferred_name), email: str(email?.address), phone: str(phone?.number),
      addressLine1: lines[0] || undefined, addressLine2: lines.slice(1).join(', ') || undefined, city: str(address?.city),
      state: str(address?.state), postalCode: str(address?.postal_code), country: str(address?.country),
      dateAdded: str(c.date_added), dateModified: str(c.date_modified),
    }),
  };
}

export function giftRecord(g: Obj): SourceRecord {
  const split = ((g.gift_splits as Obj[] | undefined) ?? [])[0];
  const payment = ((g.payments as Obj[] | undefined) ?? [])[0];
  return {
    id: String(g.id),
    fields: clean({
      id: str(g.id), lookupId: str(g.lookup_id), constituentId: str(g.constituent_id), amount: (g.amount as Obj | undefined)?.value as number | undefined,
      date: str(g.date)?.slice(0, 10), type: str(g.type), fund: str(split?.fund_id), campaign: str(split?.campaign_id), appeal: str(split?.appeal_id),
      paymentMethod: str(payment?.payment_method), batchNumber: str(g.batch_number), dateModified: str(g.date_modified),
    }),
  };
}

/** a written value as the API takes it: text, or null to clear */
export const text = (v: unknown): string | null | undefined => {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const s = typeof v === 'string' ? v.trim() : String(v);
  return s === '' ? null : s;
};

/** The constituent's own fields (not its e-mail, phone or address, which are child records). */
export function constituentBody(f: Obj): Obj {
  const out: Obj = {};
  const map: [string, string][] = [['firstName', 'first'], ['lastName', 'last'], ['middleName', 'middle'], ['title', 'title'], ['preferredName', 'preferred_name'], ['lookupId', 'lookup_id']];
  for (const [ours, theirs] of map) if (ours in f) out[theirs] = text(f[ours]);
  return out;
}

export function addressBody(f: Obj): Obj | null {
  const has = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'].some((k) => text(f[k]));
  if (!has) return null;
  const lines = [text(f.addressLine1), text(f.addressLine2)].filter(Boolean).join('\n');
  return clean({ address_lines: lines, city: text(f.city), state: text(f.state), postal_code: text(f.postalCode), country: text(f.country), type: 'Home' });
}
