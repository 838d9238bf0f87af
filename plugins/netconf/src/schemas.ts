/**
 * Learning a device's YANG modules from the device: the module list (ietf-netconf-monitoring
 * `netconf-state/schemas`, else yang-library `modules-state`, else the module capabilities of the
 * hello), each module's text with `get-schema`, and a disk cache per module set (keyed by a hash of the
 * sorted `name@revision` list) so a second device with the same set, or the same device after a restart,
 * downloads nothing. Names and revisions a device reports are checked before they become file names.
 * In memory, the texts of a module set are held once for every device that has it (weakly: a set no
 * device holds any more is collected), so a fleet of one model costs one copy, not one per device.
 * A download (a cache miss) is a `schema-download` job of the service's board, one item per module, so a
 * client follows a slow device's download under `rosetta-jobs:jobs` and the log gets its progress lines.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { child, childrenNamed, type JobStarter, MONITORING_NS, temporarySuffix, YANG_LIBRARY_NS, type XmlElement } from '@rosetta/sdk';
import { NetconfRpcError } from './errors';
import type { RpcReply } from './session';

/** Anything that can send an RPC (the session; a fake in unit tests). */
export interface RpcSender {
  rpc(body: string): Promise<RpcReply>;
}

/** One module the device offers. */
export interface ModuleRef {
  readonly name: string;
  readonly revision?: string;
  readonly namespace?: string;
}

/** A downloaded module's text. */
export interface SchemaSource extends ModuleRef {
  readonly text: string;
}

export interface DiscoveredSchemas {
  readonly sources: readonly SchemaSource[];
  /** Modules that could not be downloaded, with the device's reason. */
  readonly unavailable: ReadonlyArray<ModuleRef & { readonly reason: string }>;
  /** Where the list came from. */
  readonly listedBy: 'netconf-monitoring' | 'yang-library' | 'capabilities';
  /** Hash of the module set: the cache folder's name; devices with equal ids share a schema. */
  readonly moduleSetId: string;
  /** True when every module came from the disk cache. */
  readonly cacheHit: boolean;
}

const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
const SAFE_REVISION = /^\d{4}-\d{2}-\d{2}$/;
/** get-schema requests in flight at once: enough to hide the round trip, few enough to be polite. */
const DOWNLOAD_CONCURRENCY = 8;

const text = (e: XmlElement | undefined) => e?.text.trim() ?? '';

/** Module refs from hello capabilities (`ns?module=x&revision=y`). */
export function modulesFromCapabilities(capabilities: readonly string[]): ModuleRef[] {
  const out: ModuleRef[] = [];
  for (const cap of capabilities) {
    const q = cap.indexOf('?');
    if (q < 0) continue;
    const params = new URLSearchParams(cap.slice(q + 1));
    const name = params.get('module');
    if (!name) continue;
    const revision = params.get('revision') ?? undefined;
    out.push({ name, namespace: cap.slice(0, q), ...(revision ? { revision } : {}) });
  }
  return out;
}

function checkRef(ref: ModuleRef): string | undefined {
  if (!SAFE_NAME.test(ref.name)) return `module name ${JSON.stringify(ref.name)} is not a YANG identifier`;
  if (ref.revision !== undefined && !SAFE_REVISION.test(ref.revision)) return `revision ${JSON.stringify(ref.revision)} is not a date`;
  return undefined;
}

/** Reads the module list, preferring ietf-netconf-monitoring, then yang-library, then capabilities. */
export async function listModules(
  session: RpcSender,
  capabilities: readonly string[],
): Promise<{ modules: ModuleRef[]; listedBy: DiscoveredSchemas['listedBy'] }> {
  const offered = (ns: string) => capabilities.some((c) => c.startsWith(`${ns}?`));
  if (offered(MONITORING_NS)) {
    try {
      const reply = await session.rpc(
        `<get><filter type="subtree"><netconf-state xmlns="${MONITORING_NS}"><schemas/></netconf-state></filter></get>`,
      );
      const schemas = child(child(child(reply.root, 'data') ?? reply.root, 'netconf-state') ?? reply.root, 'schemas');
      const modules = childrenNamed(schemas ?? reply.root, 'schema')
        .filter((s) => /(^|:)yang$/.test(text(child(s, 'format'))))
        .map((s) => ({
          name: text(child(s, 'identifier')),
          revision: text(child(s, 'version')) || undefined,
          namespace: text(child(s, 'namespace')) || undefined,
        }))
        .map((m) => ({
          name: m.name,
          ...(m.revision ? { revision: m.revision } : {}),
          ...(m.namespace ? { namespace: m.namespace } : {}),
        }));
      if (modules.length > 0) return { modules: dedupe(modules), listedBy: 'netconf-monitoring' };
    } catch (e) {
      if (!(e instanceof NetconfRpcError)) throw e;
    }
  }
  if (offered(YANG_LIBRARY_NS) || capabilities.some((c) => c.startsWith('urn:ietf:params:netconf:capability:yang-library:'))) {
    try {
      const reply = await session.rpc(`<get><filter type="subtree"><modules-state xmlns="${YANG_LIBRARY_NS}"/></filter></get>`);
      const state = child(child(reply.root, 'data') ?? reply.root, 'modules-state');
      const modules: ModuleRef[] = [];
      for (const m of childrenNamed(state ?? reply.root, 'module')) {
        const revision = text(child(m, 'revision'));
        modules.push({ name: text(child(m, 'name')), ...(revision ? { revision } : {}), namespace: text(child(m, 'namespace')) });
        for (const s of childrenNamed(m, 'submodule')) {
          const r = text(child(s, 'revision'));
          modules.push({ name: text(child(s, 'name')), ...(r ? { revision: r } : {}) });
        }
      }
      if (modules.length > 0) return { modules: dedupe(modules), listedBy: 'yang-library' };
    } catch (e) {
      if (!(e instanceof NetconfRpcError)) throw e;
    }
  }
  return { modules: dedupe(modulesFromCapabilities(capabilities)), listedBy: 'capabilities' };
}

function dedupe(modules: ModuleRef[]): ModuleRef[] {
  const seen = new Map<string, ModuleRef>();
  for (const m of modules) if (m.name) seen.set(`${m.name}@${m.revision ?? ''}`, m);
  return [...seen.values()].sort((a, b) =>
    a.name === b.name ? (a.revision ?? '').localeCompare(b.revision ?? '') : a.name < b.name ? -1 : 1,
  );
}

/** The module set's id: a hash of its sorted `name@revision` list. */
export function moduleSetId(modules: readonly ModuleRef[]): string {
  const list = modules
    .map((m) => `${m.name}@${m.revision ?? ''}`)
    .sort()
    .join('\n');
  return createHash('sha256').update(list).digest('hex').slice(0, 32);
}

/** Downloads one module with get-schema. The format is sent prefixed (netconfd rejects a bare `yang`). */
export async function getSchema(session: RpcSender, ref: ModuleRef): Promise<string> {
  const version = ref.revision ? `<version>${ref.revision}</version>` : '';
  const reply = await session.rpc(
    `<get-schema xmlns="${MONITORING_NS}"><identifier>${ref.name}</identifier>${version}<format xmlns:ncm="${MONITORING_NS}">ncm:yang</format></get-schema>`,
  );
  const data = child(reply.root, 'data');
  if (!data) throw new Error(`get-schema ${ref.name}: reply without <data>`);
  return data.text.replace(/^\s*\n/, '');
}

interface CacheIndex {
  readonly modules: ReadonlyArray<ModuleRef & { readonly file: string }>;
}

/** Module sets in memory by cache folder (or by id without one), each held by the devices that have it. */
const inMemory = new Map<string, WeakRef<readonly SchemaSource[]>>();
const collected = new FinalizationRegistry<string>((key) => {
  if (inMemory.get(key)?.deref() === undefined) inMemory.delete(key);
});

/** The one in-memory copy of a module set's texts: `sources` itself the first time, the earlier copy after. */
function shared(key: string, sources: readonly SchemaSource[]): readonly SchemaSource[] {
  const earlier = inMemory.get(key)?.deref();
  if (earlier !== undefined) return earlier;
  inMemory.set(key, new WeakRef(sources));
  collected.register(sources, key);
  return sources;
}

const fileName = (m: ModuleRef) => `${m.name}${m.revision ? `@${m.revision}` : ''}.yang`;

async function readCache(dir: string, modules: readonly ModuleRef[]): Promise<SchemaSource[] | undefined> {
  try {
    const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8')) as CacheIndex;
    if (!Array.isArray(index.modules) || index.modules.length !== modules.length) return undefined;
    return await Promise.all(modules.map(async (m) => ({ ...m, text: await readFile(path.join(dir, fileName(m)), 'utf8') })));
  } catch {
    return undefined; // missing or damaged: download again
  }
}

/**
 * Writes the set to a temporary folder, then renames it into place, so a reader never sees half a set.
 * Devices with one module set install concurrently, so each writer has a folder of its own (a name unique
 * per call, not per millisecond) and the first rename wins: the others find the set in place and drop theirs.
 */
async function writeCache(dir: string, sources: readonly SchemaSource[]): Promise<void> {
  const tmp = dir + temporarySuffix();
  await mkdir(tmp, { recursive: true });
  try {
    for (const s of sources) await writeFile(path.join(tmp, fileName(s)), s.text);
    const index: CacheIndex = { modules: sources.map(({ text: _t, ...m }) => ({ ...m, file: fileName(m) })) };
    await writeFile(path.join(tmp, 'index.json'), JSON.stringify(index, null, 1));
    await rename(tmp, dir);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    // another connect wrote the same set first: theirs is as good as ours
    if ((e as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/**
 * Lists the device's modules and returns their texts, from the cache folder `cacheRoot/<moduleSetId>`
 * when complete there, else downloaded (and cached when every module downloaded). Modules that fail to
 * download are listed in `unavailable`; the rest are returned.
 */
export async function discoverSchemas(
  session: RpcSender,
  capabilities: readonly string[],
  cacheRoot: string | undefined,
  progress?: { readonly jobs: JobStarter; readonly nodeId: string },
): Promise<DiscoveredSchemas> {
  const listed = await listModules(session, capabilities);
  const unavailable: Array<ModuleRef & { reason: string }> = [];
  const modules: ModuleRef[] = [];
  for (const m of listed.modules) {
    const bad = checkRef(m);
    if (bad) unavailable.push({ ...m, reason: bad });
    else modules.push(m);
  }
  const id = moduleSetId(modules);
  const dir = cacheRoot ? path.join(cacheRoot, id) : undefined;
  const key = dir ?? id;
  if (dir) {
    const held = inMemory.get(key)?.deref();
    const cached = held ?? (await readCache(dir, modules));
    if (cached) return { sources: shared(key, cached), unavailable, listedBy: listed.listedBy, moduleSetId: id, cacheHit: true };
  }
  const sources: SchemaSource[] = [];
  const job =
    modules.length === 0
      ? undefined
      : progress?.jobs.start({
          kind: 'schema-download',
          total: modules.length,
          doing: 'downloading',
          done: 'downloaded',
          items: 'module(s)',
          nodeId: progress.nodeId,
        });
  let next = 0;
  const worker = async () => {
    while (next < modules.length) {
      const m = modules[next++]!;
      try {
        sources.push({ ...m, text: await getSchema(session, m) });
        job?.item();
      } catch (e) {
        const reason = `get-schema failed: ${e instanceof Error ? e.message : String(e)}`;
        unavailable.push({ ...m, reason });
        job?.item(`${m.name}: ${reason}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(DOWNLOAD_CONCURRENCY, modules.length) }, worker));
  } finally {
    job?.finish();
  }
  sources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (dir && sources.length === modules.length) {
    await mkdir(path.dirname(dir), { recursive: true });
    await writeCache(dir, sources);
  }
  // a set that downloaded only in part is this device's own: another may have got more of it
  const kept = sources.length === modules.length ? shared(key, sources) : sources;
  return { sources: kept, unavailable, listedBy: listed.listedBy, moduleSetId: id, cacheHit: false };
}
