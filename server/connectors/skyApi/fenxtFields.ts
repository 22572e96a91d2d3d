/**
 * Financial Edge NXT's general ledger as Tributary's fields: accounts and journal entries as the
 * General Ledger API lists them (flattened, in our names), and the gift a formula sends into a
 * journal entry batch.
 */
import type { FieldInfo, SourceRecord } from '../connector.ts';

export type FenxtObject = 'accounts' | 'journalentries' | 'journalentrybatches';

export const FENXT_FIELDS: Record<FenxtObject, FieldInfo[]> = {
  accounts: [
    { name: 'id', label: 'System record ID', type: 'string', readOnly: true },
    { name: 'accountNumber', label: 'Account number', type: 'string' },
    { name: 'description', label: 'Description', type: 'string' },
    { name: 'class', label: 'Class', type: 'string' },
    { name: 'cashflow', label: 'Cash flow', type: 'string' },
    { name: 'workingCapital', label: 'Working capital', type: 'string' },
    { name: 'preventDataEntry', label: 'Prevent data entry', type: 'boolean' },
    { name: 'preventPosting', label: 'Prevent posting', type: 'boolean' },
    { name: 'dateAdded', label: 'Date added', type: 'datetime', readOnly: true },
    { name: 'dateModified', label: 'Date changed', type: 'datetime', readOnly: true },
  ],
  journalentries: [
    { name: 'id', label: 'System record ID', type: 'string', readOnly: true },
    { name: 'batchId', label: 'Batch system record ID', type: 'string' },
    { name: 'batchNumber', label: 'Batch ID', type: 'string' },
    { name: 'type', label: 'Debit or credit', type: 'string' },
    { name: 'accountNumber', label: 'Account number', type: 'string' },
    { name: 'postDate', label: 'Post date', type: 'date' },
    { name: 'journal', label: 'Journal', type: 'string' },
    { name: 'reference', label: 'Reference', type: 'string' },
    { name: 'amount', label: 'Amount', type: 'number' },
    { name: 'notes', label: 'Notes', type: 'string' },
    { name: 'encumbrance', label: 'Encumbrance', type: 'string' },
    { name: 'dateAdded', label: 'Date added', type: 'datetime', readOnly: true },
    { name: 'dateModified', label: 'Date changed', type: 'datetime', readOnly: true },
  ],
  // a gift, as it lands in the run's batch: one debit and one credit journal entry of its amount
  journalentrybatches: [
    { name: 'amount', label: 'Amount', type: 'number', required: true },
    { name: 'date', label: 'Post date', type: 'date', required: true },
    { name: 'reference', label: 'Reference', type: 'string', searchable: true },
    { name: 'notes', label: 'Notes', type: 'string' },
    { name: 'debitAccount', label: 'Debit account number (else the destination\'s default)', type: 'string' },
    { name: 'creditAccount', label: 'Credit account number (else the destination\'s default)', type: 'string' },
    { name: 'batchId', label: 'Batch number', type: 'string', readOnly: true },
  ],
};

type Obj = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const clean = (o: Obj) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ''));

export function accountRecord(a: Obj): SourceRecord {
  return {
    id: String(a.account_id),
    fields: clean({
      id: str(a.account_id), accountNumber: str(a.account_number), description: str(a.description), class: str(a.class),
      cashflow: str(a.cashflow), workingCapital: str(a.working_capital),
      preventDataEntry: typeof a.prevent_data_entry === 'boolean' ? a.prevent_data_entry : undefined,
      preventPosting: typeof a.prevent_posting === 'boolean' ? a.prevent_posting : undefined,
      dateAdded: str(a.date_added), dateModified: str(a.date_modified),
    }),
  };
}

export function journalEntryRecord(e: Obj): SourceRecord {
  return {
    id: String(e.journal_entry_id),
    fields: clean({
      id: str(e.journal_entry_id), batchId: str(e.batch_id), batchNumber: str(e.ui_batch_id), type: str(e.type_code),
      accountNumber: str(e.account_number), postDate: str(e.post_date)?.slice(0, 10), journal: str(e.journal), reference: str(e.reference),
      amount: typeof e.amount === 'number' ? e.amount : undefined, notes: str(e.notes), encumbrance: str(e.encumbrance),
      dateAdded: str(e.date_added), dateModified: str(e.date_modified),
    }),
  };
}
