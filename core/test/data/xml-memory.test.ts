/**
 * What XML decoding keeps alive. V8 cuts a substring of 13 or more characters as a view into the
 * string it came from, so one value kept from a document kept the whole document, and caches that
 * outlive a decode (compiled element matchers, accepted identities) kept the documents they first saw
 * for the life of the process. Measured on the heap after full collections, in a process of its own.
 */
import test from 'ava';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { decodeXml, encodeJson, encodeXml, type DataRoot } from '../../src/data';
import { schema } from './fixture';

function collect(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function document(entries: number): string {
  let xml = '<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces">';
  for (let i = 0; i < entries; i++) {
    xml +=
      `<interface><name>eth${i}</name><description>a description long enough to be cut as a view, number ${i}</description>` +
      '<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><enabled>true</enabled></interface>';
  }
  return `${xml}</interfaces>`;
}

test('a decoded tree keeps none of its document: dropping the text frees it, dropping both frees both', (t) => {
  const gc = collect();
  const ctx = schema();
  // V8 keeps the last subject a regular expression matched until the next match anywhere: match elsewhere
  const heap = (): number => {
    /y/.exec('y');
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  decodeXml(document(10), ctx); // schema tables and codecs made before the baseline
  const base = heap();
  let xml: string | undefined = document(25_000);
  const size = xml.length; // one byte per character
  let tree: DataRoot | undefined = decodeXml(xml, ctx).root;
  const both = heap();
  xml = undefined;
  const treeOnly = heap();
  t.true(both - treeOnly > size * 0.8, `dropping the ${size}-byte text freed ${both - treeOnly} bytes`);
  t.is(tree.children.length, 1);
  tree = undefined;
  const none = heap();
  t.true(none - base < size * 0.2, `${none - base} bytes stay after the text and the tree are dropped (the text was ${size})`);
});

test("the encoder's caches keep nothing of the trees they wrote: a tree of views written as XML, then dropped with its text, frees both", (t) => {
  const gc = collect();
  const ctx = schema();
  const heap = (): number => {
    /y/.exec('y');
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  // enum-like values long enough to be views: the element cache and the runs of constant pieces keep them
  const doc = (n: number): string =>
    `<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces">${Array.from(
      { length: n },
      (_, i) =>
        `<interface><name>interface-number-${i}</name><description>${'d'.repeat(40)}${i}</description>` +
        '<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:softwareLoopback</type><enabled>false</enabled></interface>',
    ).join('')}</interfaces>`;
  encodeXml(decodeXml(doc(10), ctx, { views: true }).root, ctx);
  const base = heap();
  let xml: string | undefined = doc(20_000);
  const size = xml.length;
  let tree: DataRoot | undefined = decodeXml(xml, ctx, { views: true }).root;
  let written: string | undefined = encodeXml(tree, ctx);
  t.true(written.length > size / 2);
  xml = undefined;
  tree = undefined;
  written = undefined;
  const after = heap();
  t.true(after - base < size * 0.2, `${after - base} bytes stay after writing and dropping a ${size}-byte document's tree`);
});

test('views: the same tree, its values left as views into the text (for a tree dropped with its document)', (t) => {
  const ctx = schema();
  const xml = document(200);
  t.is(encodeJson(decodeXml(xml, ctx, { views: true }).root), encodeJson(decodeXml(xml, ctx).root));
});
