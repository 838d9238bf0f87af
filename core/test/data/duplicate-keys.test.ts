/**
 * Duplicate list keys, which the decoders detect once a list is read (its index is built then): the
 * fault names the second entry, and it still outranks any fault further on in the document, as if
 * it had been found entry by entry. JSON and XML, on the real ietf-interfaces + ietf-ip models.
 */
import test from 'ava';
import {
  decodeJson,
  decodeXml,
  DataError,
  findEntry,
  firstRepeatedKey,
  listIndex,
  type ListNode,
  type ContainerNode,
} from '../../src/data';
import { schema } from './fixture';

const IF_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const IP_NS = 'urn:ietf:params:xml:ns:yang:ietf-ip';
const IANA_NS = 'urn:ietf:params:xml:ns:yang:iana-if-type';

function faultOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DataError) return `${e.first.tag} ${e.first.path}: ${e.first.message}`;
    throw e;
  }
  throw new Error('no DataError thrown');
}

const eth = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  type: 'iana-if-type:ethernetCsmacd',
  ...extra,
});
const xmlEntry = (name: string, extra = ''): string =>
  `<interface><name>${name}</name><type xmlns:t="${IANA_NS}">t:ethernetCsmacd</type>${extra}</interface>`;

test('a duplicate key is named at the second entry, with the key, in JSON and XML', (t) => {
  const expected = "invalid-value /ietf-interfaces:interfaces/interface[name='eth1']: duplicate entry of list 'interface' with key eth1";
  t.is(
    faultOf(() => decodeJson({ 'ietf-interfaces:interfaces': { interface: [eth('eth0'), eth('eth1'), eth('eth1')] } }, schema())),
    expected,
  );
  t.is(
    faultOf(() =>
      decodeXml(`<interfaces xmlns="${IF_NS}">${xmlEntry('eth0')}${xmlEntry('eth1')}${xmlEntry('eth1')}</interfaces>`, schema()),
    ),
    expected,
  );
});

test('a duplicate outranks a bad value further on, in the same list or below a later entry', (t) => {
  const expected = "invalid-value /ietf-interfaces:interfaces/interface[name='a']: duplicate entry of list 'interface' with key a";
  const ctx = schema();
  t.is(
    faultOf(() => decodeJson({ 'ietf-interfaces:interfaces': { interface: [eth('a'), eth('a'), eth('b', { enabled: 'yes' })] } }, ctx)),
    expected,
  );
  t.is(
    faultOf(() =>
      decodeJson(
        {
          'ietf-interfaces:interfaces': {
            interface: [eth('a'), eth('a'), eth('b', { 'ietf-ip:ipv4': { address: [{ ip: '10.0.0.1', 'prefix-length': 99 }] } })],
          },
        },
        ctx,
      ),
    ),
    expected,
  );
  t.is(
    faultOf(() =>
      decodeXml(
        `<interfaces xmlns="${IF_NS}">${xmlEntry('a')}${xmlEntry('a')}${xmlEntry('b', '<enabled>yes</enabled>')}</interfaces>`,
        ctx,
      ),
    ),
    expected,
  );
  t.is(
    faultOf(() =>
      decodeXml(
        `<interfaces xmlns="${IF_NS}">${xmlEntry('a')}${xmlEntry('a')}` +
          `${xmlEntry('b', `<ipv4 xmlns="${IP_NS}"><address><ip>10.0.0.1</ip><prefix-length>99</prefix-length></address></ipv4>`)}</interfaces>`,
        ctx,
      ),
    ),
    expected,
  );
});

test('a bad value before any duplicate is what is reported', (t) => {
  const ctx = schema();
  const json = faultOf(() =>
    decodeJson({ 'ietf-interfaces:interfaces': { interface: [eth('a', { enabled: 'yes' }), eth('b'), eth('b')] } }, ctx),
  );
  t.regex(json, /^invalid-value \/ietf-interfaces:interfaces\/interface\[name='a'\]\/enabled: invalid value/);
  const xml = faultOf(() =>
    decodeXml(`<interfaces xmlns="${IF_NS}">${xmlEntry('a', '<enabled>yes</enabled>')}${xmlEntry('b')}${xmlEntry('b')}</interfaces>`, ctx),
  );
  t.regex(xml, /^invalid-value \/ietf-interfaces:interfaces\/interface\[name='a'\]\/enabled: invalid value/);
});

test('a nested list: a duplicate address inside an entry is named under that entry; an outer duplicate before it wins', (t) => {
  const ctx = schema();
  const addr = (ip: string): Record<string, unknown> => ({ ip, 'prefix-length': 24 });
  t.is(
    faultOf(() =>
      decodeJson(
        { 'ietf-interfaces:interfaces': { interface: [eth('a', { 'ietf-ip:ipv4': { address: [addr('10.0.0.1'), addr('10.0.0.1')] } })] } },
        ctx,
      ),
    ),
    "invalid-value /ietf-interfaces:interfaces/interface[name='a']/ietf-ip:ipv4/address[ip='10.0.0.1']: duplicate entry of list 'address' with key 10.0.0.1",
  );
  const xmlAddr = (ip: string): string => `<address><ip>${ip}</ip><prefix-length>24</prefix-length></address>`;
  t.is(
    faultOf(() =>
      decodeXml(
        `<interfaces xmlns="${IF_NS}">${xmlEntry('a', `<ipv4 xmlns="${IP_NS}">${xmlAddr('10.0.0.1')}${xmlAddr('10.0.0.1')}</ipv4>`)}</interfaces>`,
        ctx,
      ),
    ),
    "invalid-value /ietf-interfaces:interfaces/interface[name='a']/ietf-ip:ipv4/address[ip='10.0.0.1']: duplicate entry of list 'address' with key 10.0.0.1",
  );
  t.is(
    faultOf(() =>
      decodeXml(
        `<interfaces xmlns="${IF_NS}">${xmlEntry('a')}${xmlEntry('a')}` +
          `${xmlEntry('b', `<ipv4 xmlns="${IP_NS}">${xmlAddr('10.0.0.1')}${xmlAddr('10.0.0.1')}</ipv4>`)}</interfaces>`,
        ctx,
      ),
    ),
    "invalid-value /ietf-interfaces:interfaces/interface[name='a']: duplicate entry of list 'interface' with key a",
  );
});

test('the index, built at the first lookup after reading, finds every entry, frozen lists too', (t) => {
  const ctx = schema();
  const names = Array.from({ length: 500 }, (_, i) => `eth${i}`);
  const json = decodeJson({ 'ietf-interfaces:interfaces': { interface: names.map((n) => eth(n)) } }, ctx).node as ContainerNode;
  const xml = decodeXml(`<interfaces xmlns="${IF_NS}">${names.map((n) => xmlEntry(n)).join('')}</interfaces>`, ctx).node as ContainerNode;
  for (const root of [json, xml]) {
    const list = root.children[0] as ListNode;
    t.is(list.index, undefined, 'a decoder checks keys without building the index');
    t.is(listIndex(list)?.size, 500);
    t.is(findEntry(list, ['eth321']), list.entries[321]);
    const frozen = Object.freeze({ ...list, index: undefined });
    t.is(findEntry(frozen, ['eth7']), list.entries[7]);
    t.is(listIndex(frozen), listIndex(frozen), 'built once for a frozen list');
  }
});

test('firstRepeatedKey finds the first key equal to an earlier one, as a Set would, for any keys', (t) => {
  const bySet = (keys: readonly string[], count: number): number => {
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      if (seen.has(keys[i]!)) return i;
      seen.add(keys[i]!);
    }
    return -1;
  };
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const alphabet = ['a', 'b', 'é', '中', '😀', '0', ' ', ''];
  for (let round = 0; round < 300; round++) {
    const n = Math.floor(random() * 200);
    const keys = Array.from({ length: n }, () =>
      Array.from({ length: Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''),
    );
    const count = Math.floor(random() * (n + 1));
    t.is(firstRepeatedKey(keys, count), bySet(keys, count), JSON.stringify(keys.slice(0, count)));
  }
  const distinct = Array.from({ length: 50_000 }, (_, i) => `eth${i}`);
  t.is(firstRepeatedKey(distinct, distinct.length), -1);
  t.is(firstRepeatedKey([...distinct, 'eth49999'], distinct.length + 1), distinct.length);
  t.is(firstRepeatedKey([...distinct, 'eth49999'], distinct.length), -1, 'only the first count keys count');
  // ascending keys (shorter first) are known distinct without a table; a step back sends them to it
  t.is(firstRepeatedKey(['a', 'b', 'aa', 'ab', 'ba'], 5), -1);
  t.is(firstRepeatedKey(['a', 'b', 'aa', 'ab', 'b'], 5), 4);
  t.is(firstRepeatedKey(['eth0', 'eth1', 'eth1'], 3), 2);
  t.is(firstRepeatedKey(['eth2', 'eth10', 'eth3', 'eth10'], 4), 3);
  // sorted runs with repeats, as a device could send them: every answer agrees with the Set's
  for (let round = 0; round < 100; round++) {
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
    const at = 1 + Math.floor(random() * 99);
    keys[at] = keys[Math.floor(random() * at)]!;
    t.is(firstRepeatedKey(keys, keys.length), bySet(keys, keys.length), `repeat at ${at}`);
  }
});
