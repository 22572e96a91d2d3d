/**
 * Salesforce: OAuth 2.0 sign-in, and the report checks of SPEC.md sections 5 and 8 (a report id
 * must name a report the user can read, and the report needs a standard date filter).
 */
import { isSalesforceReportId } from '../../../src/domain/connectionErrors.ts';
import { salesforce } from '../../../src/domain/connectors/salesforce.ts';
import { testOnlyConnector } from '../connector.ts';
import { expectJson, VENDOR_DATA_MAX_BYTES, vendorFetch } from '../vendorHttp.ts';
import { salesforceToken } from './oauth.ts';

export const SALESFORCE_API_VERSION = 'v62.0';

export const salesforceConnector = testOnlyConnector('salesforce', async ({ settings }) => {
  const token = await salesforceToken('salesforce', 'Salesforce', settings);
  return { detail: `Signed in to Salesforce at ${new URL(token.instanceUrl).host}.` };
}, salesforce.objects);

export type ReportCheck =
  | { ok: true; name: string; dateFilterColumn: string }
  | { ok: false; problem: 'invalid-report-id' | 'report-date-filter' | 'report-missing-access'; detail: string };

interface ReportDescribe {
  reportMetadata?: { name?: string; standardDateFilter?: { column?: string | null } | null };
}

export async function checkSalesforceReport(settings: Record<string, string>, reportId: string): Promise<ReportCheck> {
  if (!isSalesforceReportId(reportId)) {
    return { ok: false, problem: 'invalid-report-id', detail: 'A report ID starts with 00O and has 15 or 18 letters and digits.' };
  }
  const token = await salesforceToken('salesforce', 'Salesforce', settings);
  const res = await vendorFetch('salesforce', 'Salesforce', `${token.instanceUrl}/services/data/${SALESFORCE_API_VERSION}/analytics/reports/${reportId}/describe`, {
    headers: { authorization: `Bearer ${token.accessToken}` },
    maxBytes: VENDOR_DATA_MAX_BYTES,
  });
  if (res.status === 404) return { ok: false, problem: 'invalid-report-id', detail: `Salesforce has no report ${reportId}.` };
  if (res.status === 403) return { ok: false, problem: 'report-missing-access', detail: `The Salesforce user cannot read report ${reportId}. Share the report's folder with that user.` };
  const body = await expectJson<ReportDescribe>('Salesforce', res, 'the report request');
  const column = body.reportMetadata?.standardDateFilter?.column;
  if (!column) return { ok: false, problem: 'report-date-filter', detail: 'Add a standard date filter to the report in Salesforce, then check it again.' };
  return { ok: true, name: body.reportMetadata?.name ?? reportId, dateFilterColumn: column };
}
