/**
 * Whole-topology reads inside a transaction: a GET (or HEAD) of `network-topology:network-topology`,
 * `.../topology=uniconfig` or `.../topology=uniconfig/node=<id>` carrying `Cookie: UNICONFIGTXID=<id>`
 * answers with that transaction's view of each node's configuration: its intended copy of the nodes it
 * looked at, the stored intended configuration of the others, everything else as stored. The local
 * read handler serves it (every query parameter works as on any local read), given datastores whose
 * versions carry the view; no datastore changes.
 *
 * As on a node's `configuration` path (data-route.ts), `content=config` and `all` show the intended
 * configuration: the Operational version the read merges in has no node configuration, so the actual one
 * does not win the merge (without the cookie a topology read with `content=all` shows the actual one).
 * `content=nonconfig` answers as without the cookie: configuration is config data, never state.
 *
 * {@link claimsRequest} is the shape test of the layer's route to data (routes.ts) in the dispatcher's
 * route table: a node's configuration, and these reads when they carry the cookie. Without the cookie
 * these paths are the local datastores'.
 */
import type { IncomingMessage } from 'node:http';
import type { Datastore, Datastores } from '../datastore/datastore';
import type { RestconfContext } from '../restconf/context';
import { TreeView } from '../restconf/tree-view';
import { lexPath } from '../restconf/uri';
import { configurationPath } from './data-route';
import type { UniconfigEngine } from './engine';
import { UNICONFIG_TOPOLOGY } from './node-store';
import { COOKIE_NAME, type Transaction } from './transactions';

/** What a topology path reads: every node of the topology, or one (see {@link topologyViewPath}). */
type ViewTarget = { readonly nodeId: string | undefined };

/** The topology path `raw` names (see {@link topologyViewPath}), or undefined for any other path. */
function viewTarget(raw: string, keyDelimiter: string | null): ViewTarget | undefined {
  let lexed: ReturnType<typeof lexPath>;
  try {
    lexed = lexPath(raw, keyDelimiter);
  } catch {
    return undefined;
  }
  const [top, topology, node, ...rest] = lexed.segments;
  if (top === undefined || rest.length > 0) return undefined;
  if (top.module !== 'network-topology' || top.name !== 'network-topology' || top.keys !== undefined) return undefined;
  if (topology === undefined) return { nodeId: undefined };
  if (
    topology.module !== undefined ||
    topology.name !== 'topology' ||
    topology.keys?.length !== 1 ||
    topology.keys[0] !== UNICONFIG_TOPOLOGY
  )
    return undefined;
  if (node === undefined) return { nodeId: undefined };
  return node.module === undefined && node.name === 'node' && node.keys?.length === 1 ? { nodeId: node.keys[0]! } : undefined;
}

/**
 * Whether `raw` (the path after `/rests/data`, `uri.parse` taps applied) is the network-topology
 * container, the uniconfig topology or one of its nodes, nothing below.
 */
export function topologyViewPath(raw: string, keyDelimiter: string | null): boolean {
  return viewTarget(raw, keyDelimiter) !== undefined;
}

/**
 * Whether the uniconfig layer answers this data request rather than the local datastores: every
 * request on a node's configuration, and reads of the topology (see {@link topologyViewPath}) that
 * carry a transaction cookie. Cheap for other paths: they begin with anything but network-topology
 * (the text, unless percent-encoded).
 */
export function claimsRequest(raw: string, keyDelimiter: string | null, req: IncomingMessage): boolean {
  if (!raw.startsWith('/network-topology:') && !raw.includes('%')) return false;
  if (configurationPath(raw, keyDelimiter) !== undefined) return true;
  return (req.method === 'GET' || req.method === 'HEAD') && hasTransactionCookie(req.headers.cookie) && topologyViewPath(raw, keyDelimiter);
}

/** Whether a Cookie header names the transaction cookie at all (its value is checked when served). */
export function hasTransactionCookie(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  return (Array.isArray(header) ? header : [header]).some((h) => h.includes(COOKIE_NAME));
}

/** `store` with each version overlaid with the transaction's views of the nodes it looked at. */
function viewOf(store: Datastore, overlay: (root: ReturnType<Datastore['current']>) => ReturnType<Datastore['current']>): Datastore {
  return {
    name: store.name,
    current: () => overlay(store.current()),
    apply: (edits, check, prepared) => store.apply(edits, check, prepared), // never reached: reads only
  };
}

/**
 * The view a GET or HEAD of the topology path `raw` (see the top of this file) reads in transaction `tx`.
 * A read of one node touches that node only: its view, if the transaction has one, and its actual
 * configuration; not the transaction's other views nor the fleet's other nodes.
 */
export function topologyView(
  ctx: RestconfContext,
  engine: UniconfigEngine,
  tx: Transaction,
  raw: string,
  keyDelimiter: string | null,
): TreeView {
  const nodeId = viewTarget(raw, keyDelimiter)?.nodeId;
  const views = nodeId === undefined ? [...tx.views.values()] : [tx.views.get(nodeId)].filter((v) => v !== undefined);
  const intended = views.map((v) => ({ nodeId: v.nodeId, value: engine.store.encode(v.intended, v.schema) }));
  const shown = nodeId === undefined ? undefined : [nodeId];
  const datastores: Datastores = {
    config: viewOf(ctx.datastores.config, (root) => engine.store.overlaid(root, 'config', intended)),
    operational: viewOf(ctx.datastores.operational, (root) => engine.store.withoutConfigurations(root, shown)),
    close: async () => undefined,
  };
  return new TreeView({ ...ctx, datastores });
}
