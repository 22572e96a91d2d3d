/**
 * Blackbaud CRM and Altru: the Infinity platform's AppFxWebService.asmx, answered with HTTP Basic
 * credentials. GetAvailableREDatabases proves the credentials and that the database exists.
 */
import { altru, bbcrm } from '../../../src/domain/connectors/blackbaud.ts';
import type { ObjectInfo, SystemId } from '../../../src/domain/connectors/types.ts';
import { processingError, refused, testOnlyConnector, type Connector } from '../connector.ts';
import { basic, expectOk, vendorFetch } from '../vendorHttp.ts';

const NS = 'Blackbaud.AppFx.WebService.API.1';
const xmlEscape = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const xmlUnescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');

function appFxConnector(system: SystemId, name: string, objects: ObjectInfo[]): Connector {
  return testOnlyConnector(system, async ({ settings, network }) => {
    const envelope = `<?xml version="1.0" encoding="utf-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
<GetAvailableREDatabasesRequest xmlns="${NS}"><ClientAppInfo REDatabaseToUse="${xmlEscape(settings.database!)}" ClientAppName="Tributary" TimeOutSeconds="10"/></GetAvailableREDatabasesRequest>
</soap:Body></soap:Envelope>`;
    const res = await vendorFetch(system, name, settings.url!, {
      method: 'POST',
      network,
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        accept: 'text/xml',
        soapaction: `"${NS}/GetAvailableREDatabases"`,
        authorization: basic(settings.username!, settings.password!),
      },
      body: envelope,
    });
    const text = (await expectOk(name, res, 'the user name and password')) as string;
    if (!/GetAvailableREDatabasesReply/.test(text)) throw processingError(`${name} did not answer as an AppFx web service; check the URL.`);
    const databases = [...text.matchAll(/<string>([^<]*)<\/string>/g)].map((m) => xmlUnescape(m[1]!));
    // the names it does offer are not repeated: they are the remote's words
    if (!databases.some((d) => d.toLowerCase() === settings.database!.toLowerCase())) {
      throw refused(`${name} has no database named ${settings.database} that this user may use.`);
    }
    return { detail: `Signed in to ${name} database ${settings.database}.` };
  }, objects);
}

export const bbcrmConnector = appFxConnector('bbcrm', 'Blackbaud CRM', bbcrm.objects);
export const altruConnector = appFxConnector('altru', 'Altru', altru.objects);
