/**
 * Edit extraction (events/data-change.ts) and the subscriptions' path and scope filter
 * (events/change-scope.ts), without a service.
 */
import test from 'ava';
import { inScope, parseScopePath, ScopePathError, scopePathText } from '../../src/events/change-scope';
import { dataChangeContent, editsOfDiff } from '../../src/events/data-change';
import { diffTrees } from '../../src/data/diff';
import { decodeJson } from '../../src/data/json-decode';
import { compileSchema } from '../../src/yang/compiler';
import type { InstancePath } from '../../src/yang/instance-path';
import { ModuleRepository } from '../../src/yang/repository';
import { MODEL_DIRS } from '../data/fixture';

const IF = 'ietf-interfaces';
const interfaces: InstancePath = [{ module: IF, name: 'interfaces' }];
const eth0: InstancePath = [...interfaces, { module: IF, name: 'interface', keys: { name: 'eth0' } }];
const eth1: InstancePath = [...interfaces, { module: IF, name: 'interface', keys: { name: 'eth1' } }];
const eth0Mtu: InstancePath = [...eth0, { module: 'ietf-ip', name: 'ipv4' }];
const eth0Deep: InstancePath = [...eth0Mtu, { module: 'ietf-ip', name: 'address', keys: { ip: '10.0.0.1' } }];

test('a subscribed path is read with modules inherited and keys decoded, and written back canonically', (t) => {
  const p = parseScopePath('/ietf-interfaces:interfaces/interface=ge-0%2F0%2F1/ietf-ip:ipv4/');
  t.deepEqual(p, [
    { module: IF, name: 'interfaces' },
    { module: IF, name: 'interface', keys: ['ge-0/0/1'] },
    { module: 'ietf-ip', name: 'ipv4' },
  ]);
  t.is(scopePathText(p), '/ietf-interfaces:interfaces/interface=ge-0%2F0%2F1/ietf-ip:ipv4');
  t.deepEqual(parseScopePath('/'), []);
  t.throws(() => parseScopePath('interfaces'), { instanceOf: ScopePathError });
  t.throws(() => parseScopePath('/interfaces'), { instanceOf: ScopePathError, message: /must name its module/ });
  t.throws(() => parseScopePath('/a:b/c d'), { instanceOf: ScopePathError });
  t.throws(() => parseScopePath('/a:b=%E0%A4%A'), { instanceOf: ScopePathError, message: /percent-escape/ });
});

test('BASE sees the node itself and its ancestors; ONE adds direct children; SUBTREE everything under it', (t) => {
  const at = parseScopePath('/ietf-interfaces:interfaces/interface=eth0');
  const seen = (scope: 'BASE' | 'ONE' | 'SUBTREE') =>
    [interfaces, eth0, eth1, eth0Mtu, eth0Deep].map((target) => inScope(target, at, scope));
  t.deepEqual(seen('BASE'), [true, true, false, false, false]);
  t.deepEqual(seen('ONE'), [true, true, false, true, false]);
  t.deepEqual(seen('SUBTREE'), [true, true, false, true, true]);
  // a whole list subscribed: every entry is the list itself
  const list = parseScopePath('/ietf-interfaces:interfaces/interface');
  t.true(inScope(eth1, list, 'BASE'));
  t.false(inScope(eth0Mtu, list, 'BASE'));
  // the whole datastore
  t.true(inScope(eth0Deep, [], 'SUBTREE'));
  t.false(inScope(eth0Deep, [], 'ONE'));
  t.true(inScope(interfaces, [], 'ONE'));
  // another module at the same name is another node
  t.false(inScope([{ module: 'other', name: 'interfaces' }], at, 'SUBTREE'));
});

test('a tree difference becomes create, replace and delete edits with RFC 7951 values', (t) => {
  const repo = new ModuleRepository([...MODEL_DIRS]);
  const schema = compileSchema(repo, { modules: ['ietf-interfaces', 'iana-if-type'] });
  const before = decodeJson(
    {
      'ietf-interfaces:interfaces': {
        interface: [
          { name: 'eth0', type: 'iana-if-type:ethernetCsmacd', description: 'a' },
          { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' },
        ],
      },
    },
    schema,
  ).root;
  const after = decodeJson(
    {
      'ietf-interfaces:interfaces': {
        interface: [
          { name: 'eth0', type: 'iana-if-type:ethernetCsmacd', description: 'b' },
          { name: 'eth2', type: 'iana-if-type:ethernetCsmacd' },
        ],
      },
    },
    schema,
  ).root;
  const content = dataChangeContent({
    datastore: 'uniconfig-actual',
    topologyId: 'uniconfig',
    nodeId: 'R1',
    edits: editsOfDiff(diffTrees(before, after)),
  });
  const body = content['rosetta-events:data-change'] as any;
  t.is(body.datastore, 'uniconfig-actual');
  t.is(body['node-id'], 'R1');
  t.deepEqual(
    body.edit.map((e: any) => [e.operation, e.target, e.value]),
    [
      ['replace', '/ietf-interfaces:interfaces/interface=eth0/description', { 'ietf-interfaces:description': 'b' }],
      ['delete', '/ietf-interfaces:interfaces/interface=eth1', undefined],
      [
        'create',
        '/ietf-interfaces:interfaces/interface=eth2',
        { 'ietf-interfaces:interface': [{ name: 'eth2', type: 'iana-if-type:ethernetCsmacd' }] },
      ],
    ],
  );
});
