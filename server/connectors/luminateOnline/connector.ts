/**
 * Luminate Online: a server API call (SRConsAPI) carrying the API key and the API administrator's
 * login, posted so the credentials stay out of URLs and logs.
 */
import { luminateOnline } from '../../../src/domain/connectors/blackbaud.ts';
import { processingError, refused, testOnlyConnector } from '../connector.ts';
import { expectJson, form, FORM, vendorFetch } from '../vendorHttp.ts';

export const luminateOnlineConnector = testOnlyConnector('luminate-online', async ({ settings, network }) => {
  const base = settings.url!.replace(/\/$/, '');
  const res = await vendorFetch('luminate-online', 'Luminate Online', `${base}/SRConsAPI`, {
    method: 'POST', headers: FORM, network,
    body: form({
      method: 'listUserFields', v: '1.0', response_format: 'json',
      api_key: settings.apiKey, login_name: settings.loginName, login_password: settings.loginPassword,
    }),
  });
  const body = await expectJson<{ errorResponse?: { code?: string; message?: string }; listUserFieldsResponse?: unknown }>('Luminate Online', res, 'the API key and login');
  if (body.errorResponse) {
    // its error code is a number from the API's documented list; its message is not repeated
    const code = String(body.errorResponse.code ?? '');
    throw refused(`Luminate Online refused the API key or login${/^\d{1,6}$/.test(code) ? ` (error ${code})` : ''}.`);
  }
  if (!body.listUserFieldsResponse) throw processingError('Luminate Online did not answer as its API documents.');
  return { detail: 'Signed in to Luminate Online as the API administrator.' };
}, luminateOnline.objects);
