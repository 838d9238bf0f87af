/**
 * The XML form of a YANG Patch (RFC 8072 §2.1, `application/yang-patch+xml`) read into its edits: the
 * envelope (`<yang-patch>`, `<patch-id>`, each `<edit>`'s fields) through the core's element reader
 * (data/xml-element.ts, over the one XML tokenizer that reads every other request body), and each
 * `<value>`'s elements handed on as their own source text, made standalone, for the data decoder
 * (data/xml-decode.ts) to decode against the schema like any other body. Malformed text answers
 * 400 malformed-message with its line and column, as other XML bodies do.
 */
import { child, parseXmlElement, type XmlElement } from '../data/xml-element';
import { escapeXmlAttribute } from '../data/xml-escape';
import { XmlSyntaxError } from '../data/xml-tokenizer';
import { malformed } from './errors';

const YANG_PATCH_NS = 'urn:ietf:params:xml:ns:yang:ietf-yang-patch';

/** One `<edit>` as written: its fields' texts, and its value's elements as standalone XML text. */
export interface XmlPatchEdit {
  readonly id: string;
  readonly operation: string;
  readonly target: string;
  readonly point?: string;
  readonly where?: string;
  readonly value?: string;
}

/** Reads a YANG Patch XML body into its patch-id and edits; throws RestconfError 400 malformed-message. */
export function readXmlPatch(text: string): { readonly patchId: string; readonly edits: readonly XmlPatchEdit[] } {
  let root: XmlElement;
  try {
    root = parseXmlElement(text);
  } catch (e) {
    throw e instanceof XmlSyntaxError ? malformed(e.message) : e;
  }
  if (root.name !== 'yang-patch') throw malformed("the body must be a 'yang-patch' element");
  if (root.attrs['xmlns'] !== YANG_PATCH_NS) throw malformed(`'yang-patch' must be in namespace ${YANG_PATCH_NS}`);
  const patchId = child(root, 'patch-id')?.text.trim();
  const edits: XmlPatchEdit[] = [];
  for (const edit of root.children) {
    if (edit.name !== 'edit') continue;
    const fields: Record<string, string> = {};
    let value: string | undefined;
    for (const field of edit.children) {
      if (field.name === 'value') value = valueText(text, field);
      else fields[field.name] = field.text.trim();
    }
    edits.push({
      id: fields['edit-id'] ?? '',
      operation: fields['operation'] ?? '',
      target: fields['target'] ?? '',
      ...(fields['point'] !== undefined ? { point: fields['point'] } : {}),
      ...(fields['where'] !== undefined ? { where: fields['where'] } : {}),
      ...(value !== undefined ? { value } : {}),
    });
  }
  if (patchId === undefined) throw malformed('yang-patch: patch-id is missing');
  return { patchId, edits };
}

/**
 * The elements under `<value>`, each as its source text with the prefixes declared on its ancestors
 * (`<yang-patch>`, `<edit>`, `<value>`) declared on it, and the default namespace `<value>` declares
 * (YANG Patch's own is not inherited: a value element names its module's namespace or has none).
 */
function valueText(source: string, value: XmlElement): string {
  const own = value.attrs['xmlns'];
  const defaultNs = own !== undefined && own !== YANG_PATCH_NS ? own : undefined;
  let out = '';
  for (const element of value.children) {
    let declarations = '';
    for (const [prefix, uri] of element.scope) {
      if (prefix === '') continue;
      const attribute = `xmlns:${prefix}`;
      if (!(attribute in element.attrs)) declarations += ` ${attribute}="${escapeXmlAttribute(uri)}"`;
    }
    if (defaultNs !== undefined && !('xmlns' in element.attrs)) declarations += ` xmlns="${escapeXmlAttribute(defaultNs)}"`;
    const raw = source.slice(element.start, element.end);
    const nameEnd = 1 + (element.prefix === '' ? 0 : element.prefix.length + 1) + element.name.length;
    out += raw.slice(0, nameEnd) + declarations + raw.slice(nameEnd);
  }
  return out;
}
