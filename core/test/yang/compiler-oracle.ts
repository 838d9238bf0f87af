/**
 * Test support: reads yanglint's tree diagrams (the corpus's oracle/trees) into (depth, name) rows
 * and lists a compiled subtree the same way, so compiler tests can compare node sets and order
 * with the reference compiler without depending on the tree printer.
 */
import * as fs from 'node:fs';
import type { SchemaNode } from '../../src/yang/schema';
import { corpusPath } from '../corpus';

/** One row of a tree: how deep the node is and its name (with the prefix yanglint shows, if any). */
export interface TreeRow {
  readonly depth: number;
  readonly name: string;
}

const ROW = /^(\s*(?:[| ]\s{2})*)\+--(?:[-rwxnou]+|:)\s*(\S+)/;

/** The rows of an oracle tree file's first module section (`module:` lines and augment sections excluded). */
export function oracleRows(file: string): TreeRow[] {
  const rows: TreeRow[] = [];
  for (const line of fs.readFileSync(corpusPath('oracle/trees', file), 'utf8').split('\n')) {
    if (/^\s*(augment|rpcs|notifications|grouping)/.test(line)) break;
    // Status shows in the first column: + current, x deprecated, o obsolete.
    const i = line.search(/[+xo]--/);
    if (i < 0) continue;
    const m = /^[+xo]--(?:[-a-z]+\s+|:)(\S+)/.exec(line.slice(i));
    if (!m) continue;
    rows.push({ depth: (i - 2) / 3, name: m[1]!.replace(/[()*?!]/g, '') });
  }
  void ROW;
  return rows;
}

/**
 * Our rows for a node and its subtree, in yanglint's order: data children (choice/case included),
 * then actions, then notifications; augmenting modules' nodes carry their prefix.
 */
export function compiledRows(node: SchemaNode, depth = 0, parentModule = node.module.name, out: TreeRow[] = []): TreeRow[] {
  const name = node.module.name !== parentModule || (node.kind === 'case' && false) ? `${node.module.prefix}:${node.name}` : node.name;
  out.push({ depth, name });
  let kids = node.children as readonly SchemaNode[];
  if (node.kind === 'action' || node.kind === 'rpc') kids = kids.filter((k) => k.children.length > 0);
  const order = (k: SchemaNode): number => (k.kind === 'action' ? 1 : k.kind === 'notification' ? 2 : 0);
  const sorted = [...kids].sort((a, b) => order(a) - order(b));
  for (const c of sorted) compiledRows(c, depth + 1, rootModule(node, parentModule), out);
  return out;
}

function rootModule(node: SchemaNode, fallback: string): string {
  void node;
  return fallback;
}
