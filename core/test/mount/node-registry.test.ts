/**
 * The node registry's per-topology counts: the topologies a local write is checked against follow
 * installs, reinstalls under another topology, uninstalls and close, without a walk over the nodes.
 */
import test from 'ava';
import type { MountedNode } from '../../src/mount/node';
import { NodeRegistry } from '../../src/mount/node-registry';

function node(nodeId: string, topology: string): MountedNode {
  return { nodeId, kind: { topology } } as unknown as MountedNode;
}

test('a topology is listed while it holds a node, and only then', (t) => {
  const nodes = new NodeRegistry();
  nodes.set('a', node('a', 'topology-netconf'));
  nodes.set('b', node('b', 'topology-netconf'));
  nodes.set('c', node('c', 'cli'));
  t.deepEqual([...nodes.topologies()].sort(), ['cli', 'topology-netconf']);
  nodes.delete('a');
  t.deepEqual([...nodes.topologies()].sort(), ['cli', 'topology-netconf']);
  nodes.delete('b');
  t.deepEqual([...nodes.topologies()], ['cli']);
  t.false(nodes.delete('b'), 'a node deleted twice is not counted off twice');
  t.deepEqual([...nodes.topologies()], ['cli']);
  nodes.clear();
  t.deepEqual([...nodes.topologies()], []);
});

test('a node set again under another topology moves its count', (t) => {
  const nodes = new NodeRegistry();
  nodes.set('a', node('a', 'cli'));
  nodes.set('a', node('a', 'topology-netconf'));
  t.deepEqual([...nodes.topologies()], ['topology-netconf']);
  t.is(nodes.size, 1);
});

test('thousands of nodes in one topology count as one topology', (t) => {
  const nodes = new NodeRegistry();
  for (let i = 0; i < 5000; i++) nodes.set(`n${i}`, node(`n${i}`, 'topology-netconf'));
  for (let i = 0; i < 4999; i++) nodes.delete(`n${i}`);
  t.deepEqual([...nodes.topologies()], ['topology-netconf']);
  nodes.delete('n4999');
  t.deepEqual([...nodes.topologies()], []);
});
