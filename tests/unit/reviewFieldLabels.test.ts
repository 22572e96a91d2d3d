/**
 * The review names a connector source's fields as its system does (Mailchimp's FNAME is
 * First Name), as it names the destination's; a file's columns are their own names, and are not
 * asked for.
 */
import { describe, expect, it } from 'vitest';
import { readReview } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';

const end = (dataSourceId: string, system: string, object: string) => ({ dataSourceId, system, object, settings: {}, hasAdditionalSettings: false, objectsKept: true });

function calls(asked: string[]) {
  return {
    formulas: { get: async (id: string) => ({ id, parts: [] }) as unknown as FormulaView, getPart: async () => null },
    integrations: {
      objects: async () => ({ objects: [] }),
      fields: async (dataSourceId: string, object: string) => {
        asked.push(`${dataSourceId}/${object}`);
        return dataSourceId === 'mc'
          ? { fields: [{ name: 'FNAME', label: 'First Name' }, { name: 'email_address', label: 'E-mail address' }] }
          : { fields: [{ name: 'first', label: 'First name' }] };
      },
    },
  } as unknown as Parameters<typeof readReview>[0];
}

describe('the review names the fields', () => {
  it("names a connector source's fields by their labels", async () => {
    const asked: string[] = [];
    const formula = { id: 'f1', parts: [], sourceDataSource: end('mc', 'mailchimp', 'members'), firstDestinationDataSource: end('sky', 'renxt', 'constituents') } as unknown as FormulaView;
    const review = await readReview(calls(asked), formula);
    expect(review.sourceFieldLabels).toEqual({ FNAME: 'First Name', email_address: 'E-mail address' });
    expect(review.fieldLabels).toEqual({ first: 'First name' });
  });

  it("does not ask for a file's columns", async () => {
    const asked: string[] = [];
    const formula = { id: 'f2', parts: [], sourceDataSource: end('up', 'file-upload', 'u1'), firstDestinationDataSource: end('sky', 'renxt', 'constituents') } as unknown as FormulaView;
    const review = await readReview(calls(asked), formula);
    expect(review.sourceFieldLabels).toEqual({});
    expect(asked).toEqual(['sky/constituents']);
  });
});
