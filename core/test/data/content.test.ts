/**
 * The config/state cut (data/content.ts): what each mode keeps, that the input is never changed, and
 * that a cut which keeps everything hands back the very nodes it was given (a config-only device reply
 * cut to config is not copied).
 */
import test from 'ava';
import { cutContent, decodeJson, encodeJson, type DataRoot, type ListNode } from '../../src/data';
import { schema } from './fixture';

const ctx = schema();
const tree = (doc: unknown): DataRoot => decodeJson(doc, ctx).root;

const interfaces = (n: number, withState: boolean) => ({
  'ietf-interfaces:interfaces': {
    interface: Array.from({ length: n }, (_, i) => ({
      name: `eth${i}`,
      type: 'iana-if-type:ethernetCsmacd',
      enabled: true,
      ...(withState ? { 'oper-status': 'up' } : {}),
    })),
  },
});

test('config cut of configuration only: the same tree back, list index and all', (t) => {
  const root = tree(interfaces(50, false));
  const cut = cutContent(root, 'config');
  t.is(cut, root);
  const list = (cut.children[0]! as { children: ListNode[] }).children[0]!;
  t.is(list, (root.children[0]! as { children: ListNode[] }).children[0]!);
});

test('config cut drops state leaves, copies only what changed, leaves the input as it was', (t) => {
  const root = tree(interfaces(3, true));
  const before = encodeJson(root);
  const cut = cutContent(root, 'config');
  t.not(cut, root);
  t.deepEqual(JSON.parse(encodeJson(cut)), interfaces(3, false));
  t.is(encodeJson(root), before, 'the input is unchanged');
});

test('nonconfig cut keeps state and the keys that name its entries; a tree with no state leaves nothing', (t) => {
  const root = tree(interfaces(2, true));
  t.deepEqual(JSON.parse(encodeJson(cutContent(root, 'nonconfig'))), {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'eth0', 'oper-status': 'up' },
        { name: 'eth1', 'oper-status': 'up' },
      ],
    },
  });
  t.deepEqual(cutContent(tree(interfaces(2, false)), 'nonconfig').children, []);
});

test('a non-presence container emptied by the config cut goes; one that was empty stays', (t) => {
  const withState = tree({ 'data-kinds:kinds': { state: { uptime: 5 } } });
  t.deepEqual(cutContent(withState, 'config').children, []);
  const empty = tree({ 'data-kinds:kinds': {} });
  t.is(cutContent(empty, 'config'), empty);
  const mixed = tree({ 'data-kinds:kinds': { color: 'red', state: { uptime: 5 } } });
  t.deepEqual(JSON.parse(encodeJson(cutContent(mixed, 'config'))), { 'data-kinds:kinds': { color: 'red' } });
  t.deepEqual(JSON.parse(encodeJson(cutContent(mixed, 'nonconfig'))), { 'data-kinds:kinds': { state: { uptime: 5 } } });
});

test('a subtree whose schema holds no state is kept whole by the config cut and dropped by the nonconfig cut, unwalked', (t) => {
  // data-kinds route entries: all config, while their parent container holds state elsewhere
  const root = tree({
    'data-kinds:kinds': { route: [{ prefix: '10.0.0.0/8', metric: 10, 'next-hop': '192.0.2.9' }], state: { uptime: 5 } },
  });
  const kinds = root.children[0]! as { children: ListNode[] };
  const route = kinds.children.find((c) => c.schema.name === 'route')!;
  const config = cutContent(root, 'config').children[0]! as { children: ListNode[] };
  t.is(
    config.children.find((c) => c.schema.name === 'route'),
    route,
    'the very list, not a copy',
  );
  t.deepEqual(JSON.parse(encodeJson(cutContent(root, 'nonconfig'))), { 'data-kinds:kinds': { state: { uptime: 5 } } });
  t.is(cutContent(route, 'nonconfig'), undefined);
  t.is(cutContent(route, 'config'), route);
});
