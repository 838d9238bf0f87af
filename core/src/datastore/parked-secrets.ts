/**
 * Re-sealing the sealed values of parked data (parked-data.ts) under a new secrets key, for
 * `rosetta secrets rotate-key` (rotate-key.ts). Parked data belongs to modules the schema lacks, so
 * which leaves are sensitive is unknown; but a sealed value is recognisable by its form, and the
 * context it was sealed for (sensitive.ts: the instance path of its leaf) can be rebuilt from the
 * stored edit: its target steps name module, node and list keys, and below them member names carry
 * their module (RFC 7951: a bare name is in its parent's module).
 *
 * One thing the stored form does not say without the schema is which members of an absent module's
 * list entry are its keys. The stored JSON writes an entry's keys first, in key order (data/children.ts),
 * so the candidates are the entry's leading scalar members, one, two, ... of them; AES-GCM authenticates
 * the context, so the one candidate a value opens under is the context it was sealed for, never a guess.
 * Lists of modules the schema has take their keys from it.
 *
 * A value opened with the old key is sealed with the new one for the same context; one the new key
 * already opens (an interrupted rotation run again) is kept. One neither key opens under any
 * candidate (a client's entry written keys last, a sealed value copied to another leaf) cannot be
 * carried over, and leaving it would lose it once the old key is destroyed: it is reported, and the
 * rotation refuses, naming its modules, so their plugins are enabled first and the data rotated as served.
 * Values of earlier versions (no context) are sealed in the current form when their context is certain.
 */
import { resolveChild, tableFor } from '../data/children';
import type { ListSchema, SchemaContext, SchemaNode } from '../yang/schema';
import type { ParkedEdit } from './edit-record';
import { SEALED_PREFIX, SecretBox } from './secrets';
import { storedContextStep } from './sensitive';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || (Array.isArray(v) && v.length === 1 && v[0] === null);

/** What re-sealing the parked items found. */
export interface ParkedResealing {
  /** The items, sealed values under the new key (the same objects when nothing changed). */
  readonly items: readonly ParkedEdit[];
  readonly resealed: number;
  /** Sealed values the new key already opens. */
  readonly kept: number;
  /** Items holding a sealed value that neither key opens under any context it can have. */
  readonly unresolved: readonly ParkedEdit[];
}

/** Where a walk stands: the contexts the holding node may have, its module, and its schema when known. */
interface Place {
  readonly contexts: readonly string[];
  readonly module: string | undefined;
  /** The schema node holding the members; undefined at the top level or inside an absent module (`known` tells). */
  readonly schema: SchemaNode | undefined;
  readonly known: boolean;
}

class Resealer {
  resealed = 0;
  kept = 0;
  unresolved = false;

  constructor(
    private readonly ctx: SchemaContext,
    private readonly oldBox: SecretBox,
    private readonly newBox: SecretBox,
  ) {}

  /** `value` sealed with the new key, or undefined when it is to stay as it is. */
  private reseal(value: string, contexts: readonly string[]): string | undefined {
    if (value.startsWith(SEALED_PREFIX)) {
      for (const context of contexts) {
        const clear = this.oldBox.open(value, context);
        if (clear !== undefined) {
          this.resealed++;
          return this.newBox.seal(clear, context);
        }
      }
      if (contexts.some((context) => this.newBox.open(value, context) !== undefined)) this.kept++;
      else this.unresolved = true;
      return undefined;
    }
    const clear = this.oldBox.openLegacy(value);
    if (clear !== undefined && contexts.length === 1) {
      this.resealed++;
      return this.newBox.seal(clear, contexts[0]!);
    }
    this.unresolved = true;
    return undefined;
  }

  /** Re-seals, in place, the sealed values among the members of `doc`, held at `place`. */
  members(doc: JsonObject, place: Place): void {
    for (const name of Object.keys(doc)) {
      if (name === '@') continue;
      const colon = name.indexOf(':');
      const module = colon < 0 ? place.module : name.slice(0, colon);
      const qualified = `${module}:${colon < 0 ? name : name.slice(colon + 1)}`;
      const slot = place.known ? resolveChild(tableFor(place.schema, this.ctx), name) : undefined;
      const schema = slot?.schema as SchemaNode | undefined;
      const raw = doc[name];
      const wrapped = isObject(raw) && '#' in raw;
      const value = wrapped ? raw['#'] : raw;
      if (typeof value === 'string') {
        if (!SecretBox.isSealed(value)) continue;
        const sealed = this.reseal(
          value,
          place.contexts.map((c) => c + storedContextStep(qualified)),
        );
        if (sealed === undefined) continue;
        if (wrapped) raw['#'] = sealed;
        else doc[name] = sealed;
      } else if (isObject(value)) {
        const contexts = place.contexts.map((c) => c + storedContextStep(qualified));
        this.members(value, { contexts, module, schema, known: schema !== undefined });
      } else if (Array.isArray(value)) {
        for (const entry of value) {
          if (!isObject(entry)) continue;
          const contexts = this.entryContexts(entry, place.contexts, qualified, schema);
          this.members(entry, { contexts, module, schema, known: schema !== undefined });
        }
      }
    }
  }

  /** The contexts a list entry may have: its keys from the schema, else each run of its leading scalar members. */
  private entryContexts(entry: JsonObject, parents: readonly string[], qualified: string, schema: SchemaNode | undefined): string[] {
    let candidates: unknown[][];
    if (schema?.kind === 'list') {
      const keys = (schema as ListSchema).keys;
      candidates = [keys.map((k) => entry[k.name] ?? entry[`${k.module.name}:${k.name}`])];
    } else {
      const scalars: unknown[] = [];
      for (const [name, member] of Object.entries(entry)) {
        if (name === '@' || !isScalar(member)) break;
        scalars.push(member);
      }
      candidates = scalars.map((_, n) => scalars.slice(0, n + 1));
    }
    return parents.flatMap((c) => candidates.map((keys) => c + storedContextStep(qualified, keys)));
  }
}

/** The module a stored step name `module:name` is in. */
const stepModule = (step: unknown): string | undefined =>
  isObject(step) && typeof step.n === 'string' && step.n.includes(':') ? step.n.slice(0, step.n.indexOf(':')) : undefined;

/** The context of the node a run of stored target steps names (`{"n": "module:name", "k"?: [keys]}`). */
function targetContext(steps: readonly unknown[]): string {
  let out = '';
  for (const step of steps) {
    if (!isObject(step) || typeof step.n !== 'string') continue;
    out += storedContextStep(step.n, Array.isArray(step.k) ? step.k : undefined);
  }
  return out;
}

/** The schema node a run of stored target steps names, while the schema knows every step. */
function targetSchema(steps: readonly unknown[], ctx: SchemaContext): { schema: SchemaNode | undefined; known: boolean } {
  let schema: SchemaNode | undefined;
  for (const step of steps) {
    if (!isObject(step) || typeof step.n !== 'string') return { schema: undefined, known: false };
    const next = resolveChild(tableFor(schema, ctx), step.n)?.schema as SchemaNode | undefined;
    if (next === undefined) return { schema: undefined, known: false };
    schema = next;
  }
  return { schema, known: true };
}

/**
 * The parked `items` with every sealed value opened with `oldBox` sealed again with `newBox` for the
 * same leaf (copies; the given items are not changed). `ctx` is the schema the store was opened on.
 */
export function resealParked(items: readonly ParkedEdit[], ctx: SchemaContext, oldBox: SecretBox, newBox: SecretBox): ParkedResealing {
  const resealer = new Resealer(ctx, oldBox, newBox);
  const unresolved: ParkedEdit[] = [];
  const out = items.map((item) => {
    const text = JSON.stringify(item.edit);
    if (!text.includes('$rosetta$')) return item;
    const edit = JSON.parse(text) as JsonObject;
    const target = Array.isArray(edit.t) ? edit.t : [];
    // The value of an edit sits under the parent of its target (edit-record.ts).
    const parentSteps = target.slice(0, -1);
    const { schema, known } = targetSchema(parentSteps, ctx);
    const place: Place = { contexts: [targetContext(parentSteps)], module: stepModule(parentSteps.at(-1)), schema, known };
    resealer.unresolved = false;
    if (isObject(edit.d)) resealer.members(edit.d, place);
    if (typeof edit.b === 'string') {
      const body = JSON.parse(edit.b) as unknown;
      if (isObject(body)) {
        resealer.members(body, place);
        edit.b = JSON.stringify(body);
      }
    }
    if (resealer.unresolved) unresolved.push(item);
    return { ...item, edit };
  });
  return { items: out, resealed: resealer.resealed, kept: resealer.kept, unresolved };
}
