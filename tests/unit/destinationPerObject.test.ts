/**
 * What a destination offers a formula depends on the formula's object: additional settings that
 * matter to one object only (Raiser's Edge NXT's gift batch prefix) are not offered to another, a
 * formula whose object has none gets no settings step, and fields the destination sets itself (a
 * record id, the date added) are marked read-only and refused as mapping targets.
 */
import { describe, expect, it } from 'vitest';
import { formFields, settingsSchema, text } from '../../src/domain/connectors/fields.ts';
import { renxt } from '../../src/domain/connectors/blackbaud.ts';
import { salesforce } from '../../src/domain/connectors/salesforce.ts';
import { additionalSettingsFor, hasAdditionalSettings } from '../../src/domain/connectors/types.ts';
import { readOnlyMappingProblem } from '../../src/domain/formula/parts.ts';
import { wizardSteps } from '../../src/domain/formula/wizard.ts';
import { fieldInfo } from '../../server/connectors/salesforce/records.ts';
import { sandbox } from '../../server/connectors/sandboxCrm/fields.ts';
import { RENXT_FIELDS } from '../../server/connectors/skyApi/renxtFields.ts';

const keys = (object: string) => formFields(additionalSettingsFor(renxt, 'destination', object)!).map((f) => f.key);

describe('additional settings per object', () => {
  it('offers Raiser\'s Edge NXT\'s gift batch prefix to gifts only, and the constituent code to constituents only', () => {
    expect(keys('constituents')).toEqual(['constituentCode', 'onMatch', 'blankValues']);
    expect(keys('gifts')).toEqual(['giftBatchPrefix', 'onMatch', 'blankValues']);
    // without an object (the catalogue's own summary) every field the role has
    expect(formFields(additionalSettingsFor(renxt, 'destination')!).map((f) => f.key)).toContain('giftBatchPrefix');
  });

  it('gives the same schema for the same object, and the whole one where no field is limited to objects', () => {
    expect(additionalSettingsFor(renxt, 'destination', 'gifts')).toBe(additionalSettingsFor(renxt, 'destination', 'gifts'));
    expect(additionalSettingsFor(salesforce, 'destination', 'Contact')).toBe(salesforce.additionalSettings.destination);
  });

  it('a formula whose object has none of the settings has no settings step', () => {
    const giftsOnly = { additionalSettings: { destination: settingsSchema({ batch: text('Gift batch', { required: false, objects: ['gifts'] }) }) } };
    expect(hasAdditionalSettings(giftsOnly, 'destination', 'gifts')).toBe(true);
    expect(hasAdditionalSettings(giftsOnly, 'destination', 'constituents')).toBe(false);
    const steps = (destinationHasSettings: boolean) => wizardSteps({ sourceHasSettings: false, destinationHasSettings, customRouting: false, usesFileUpload: false, isDraft: true });
    expect(steps(hasAdditionalSettings(giftsOnly, 'destination', 'constituents'))).not.toContain('additional-settings-destination');
    expect(steps(hasAdditionalSettings(giftsOnly, 'destination', 'gifts'))).toContain('additional-settings-destination');
  });
});

describe('fields the destination sets itself', () => {
  const readOnly = (fields: { name: string; readOnly?: boolean }[]) => fields.filter((f) => f.readOnly).map((f) => f.name);

  it('are read-only in Raiser\'s Edge NXT, the Sandbox CRM and Salesforce\'s describe', () => {
    expect(readOnly(RENXT_FIELDS.constituents)).toEqual(['id', 'dateAdded', 'dateModified']);
    expect(readOnly(RENXT_FIELDS.gifts)).toEqual(['id', 'batchNumber', 'dateModified']);
    expect(readOnly(sandbox.fields.constituents)).toEqual(['createdOn', 'modifiedOn']);
    const sf = (name: string, createable: boolean, updateable: boolean) => fieldInfo({ name, label: name, type: 'string', createable, updateable });
    expect(sf('Id', false, false).readOnly).toBe(true);
    expect(sf('LastName', true, true).readOnly).toBeUndefined();
    // written when a record is created, though not afterwards: still a mapping target
    expect(sf('AccountId', true, false).readOnly).toBeUndefined();
  });

  it('cannot be mapped, only ignored, and the refusal names them', () => {
    const fields = RENXT_FIELDS.constituents;
    expect(readOnlyMappingProblem({ fields: [{ destination: 'lastName', kind: 'source', source: 'Last' }, { destination: 'id', kind: 'ignored' }] }, fields)).toBeNull();
    expect(readOnlyMappingProblem({ fields: [{ destination: 'dateAdded', kind: 'source', source: 'Joined' }] }, fields))
      .toBe('Date added is set by the destination itself and cannot be mapped.');
    expect(readOnlyMappingProblem({ fields: [{ destination: 'id', kind: 'defined', value: '1' }, { destination: 'dateModified', kind: 'source', source: 'Changed' }] }, fields))
      .toBe('System record ID, Date changed are set by the destination itself and cannot be mapped.');
  });
});
