/**
 * XML answers (SOAP envelopes, XML APIs) read into elements with the project's XML parser (saxes),
 * never with patterns over the text. An element keeps its local name (a namespace prefix such as
 * `soap:` is dropped, as the vendors' documents mix them freely), its attributes by local name, its
 * children and its text; a document that is not well-formed is null.
 */
import { SaxesParser } from 'saxes';

export interface XmlElement { name: string; attributes: Record<string, string>; children: XmlElement[]; text: string }

const local = (name: string) => name.replace(/^.*:/, '');

export function parseXml(xml: string): XmlElement | null {
  const parser = new SaxesParser({ position: false });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  parser.on('opentag', (tag) => {
    const attributes = Object.fromEntries(Object.entries(tag.attributes).map(([k, v]) => [local(k), String(typeof v === 'string' ? v : v.value)]));
    const el: XmlElement = { name: local(tag.name), attributes, children: [], text: '' };
    stack.at(-1)?.children.push(el);
    if (!root) root = el;
    stack.push(el);
  });
  const text = (t: string) => { const top = stack.at(-1); if (top) top.text += t; };
  parser.on('text', text);
  parser.on('cdata', text);
  parser.on('closetag', () => { stack.pop(); });
  try {
    parser.write(xml).close();
  } catch {
    return null;
  }
  return root;
}

/** the first child element named `name` */
export const child = (el: XmlElement | null | undefined, name: string): XmlElement | undefined => el?.children.find((c) => c.name === name);
/** every child element named `name` */
export const children = (el: XmlElement | null | undefined, name: string): XmlElement[] => el?.children.filter((c) => c.name === name) ?? [];
/** the trimmed text of the first child named `name` ('' when absent) */
export const textOf = (el: XmlElement | null | undefined, name: string): string => child(el, name)?.text.trim() ?? '';
/** the first element named `name` at any depth below `el` */
export function find(el: XmlElement | null | undefined, name: string): XmlElement | undefined {
  if (!el) return undefined;
  for (const c of el.children) {
    if (c.name === name) return c;
    const below = find(c, name);
    if (below) return below;
  }
  return undefined;
}
