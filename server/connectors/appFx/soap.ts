/**
 * The AppFx web service's SOAP 1.1 envelopes (namespace Blackbaud.AppFx.WebService.API.1), built
 * and read with the project's XML parser (saxes), never with patterns over the text. Every request
 * names its database in ClientAppInfo's REDatabaseToUse: one web service serves several databases.
 * Form and filter values travel as `<Values xmlns="bb_appfx_dataforms"><fv ID="…"><Value>…`, data
 * and search list rows as `<r><Values><v>…</v></Values></r>` in the order of the list's output
 * fields (its metadata, asked for with IncludeMetaData).
 */
import { child, children, find, parseXml, type XmlElement } from '../kit/xml.ts';

export const APPFX_NS = 'Blackbaud.AppFx.WebService.API.1';
const DATAFORMS_NS = 'bb_appfx_dataforms';

const escape = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** An element with its attributes and inner XML (already escaped). */
export function el(name: string, attributes: Record<string, string | undefined>, inner = ''): string {
  const attrs = Object.entries(attributes).filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${escape(v!)}"`).join('');
  return inner ? `<${name}${attrs}>${inner}</${name}>` : `<${name}${attrs}/>`;
}
export const textEl = (name: string, value: string) => el(name, {}, escape(value) || '');

/** Field values as forms and filters take them: `<Values xmlns="bb_appfx_dataforms"><fv ID="…"><Value>…</Value></fv>…`. */
export function fieldValues(values: Record<string, string>): string {
  const fvs = Object.entries(values).map(([id, v]) => el('fv', { ID: id }, `<Value>${escape(v)}</Value>`)).join('');
  return el('Values', { xmlns: DATAFORMS_NS }, fvs || ' ');
}

/** The envelope of one operation's request (`DataListLoad` → `<DataListLoadRequest>`), naming the database. */
export function envelope(operation: string, database: string, inner: string, attributes: Record<string, string> = {}): string {
  const clientAppInfo = el('ClientAppInfo', { REDatabaseToUse: database, ClientAppName: 'Tributary', TimeOutSeconds: '100' });
  return '<?xml version="1.0" encoding="utf-8"?>'
    + '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">'
    + `<soap:Body>${el(`${operation}Request`, { xmlns: APPFX_NS, ...attributes }, clientAppInfo + inner)}</soap:Body></soap:Envelope>`;
}

/** The reply element of a SOAP answer (`<DataListLoadReply>`), or its fault's words. */
export function replyOf(operation: string, xml: string): { reply?: XmlElement; fault?: string } | null {
  const doc = parseXml(xml);
  const body = child(doc, 'Body');
  if (doc?.name !== 'Envelope' || !body) return null;
  const fault = child(body, 'Fault');
  if (fault) {
    const words = (child(fault, 'faultstring')?.text ?? '').trim() || (child(child(fault, 'Reason'), 'Text')?.text ?? '').trim();
    return { fault: words.slice(0, 500) || 'a SOAP fault without words' };
  }
  const reply = child(body, `${operation}Reply`);
  return reply ? { reply } : null;
}

/**
 * The rows of a data list or search list reply, each keyed by the list's output field IDs (its
 * metadata); a list answered without metadata keys them by position (`0`, `1`, …).
 */
export function rowsOf(reply: XmlElement): Record<string, string>[] {
  const fields = (find(reply, 'OutputFields')?.children ?? []).filter((f) => f.name === 'OutputField').map((f) => f.attributes.FieldID ?? f.attributes.Name ?? '');
  return children(find(reply, 'Rows'), 'r').map((r) => {
    const values = children(child(r, 'Values'), 'v');
    return Object.fromEntries(values.map((v, i) => [fields[i] || String(i), v.text.trim()]));
  });
}
