/**
 * The units' own YANG models as the code sees them: module names, identity values in RFC 7951 form, and
 * lookups into whole configuration documents (a writer that needs data outside its node, such as the AS
 * number a neighbor is configured under, finds it here).
 */
import type { JsonObject, JsonValue, Keys } from '@rosetta/sdk';

export const IF_MODULE = 'rosetta-openconfig-interfaces';
export const NI_MODULE = 'rosetta-openconfig-network-instance';
export const POLICY_TYPES = 'rosetta-openconfig-policy-types';

export const INTERFACES = `/${IF_MODULE}:interfaces/interface`;
export const NETWORK_INSTANCES = `/${NI_MODULE}:network-instances/network-instance`;
export const PROTOCOLS = `${NETWORK_INSTANCES}/protocols/protocol`;

/** The protocols FRR runs once per network instance, with the instance name this unit gives each. */
export const PROTOCOL_NAMES = { STATIC: 'static', BGP: 'default' } as const;
export type ProtocolKind = keyof typeof PROTOCOL_NAMES;

/** `rosetta-openconfig-policy-types:STATIC` (or a bare `STATIC`) -> `STATIC`; other protocols -> undefined. */
export function protocolKind(identifier: string | undefined): ProtocolKind | undefined {
  const bare = identifier?.slice(identifier.indexOf(':') + 1);
  return bare === 'STATIC' || bare === 'BGP' ? bare : undefined;
}

/** The identityref value of a protocol, module-qualified as RFC 7951 asks across modules. */
export function protocolIdentity(kind: ProtocolKind): string {
  return `${POLICY_TYPES}:${kind}`;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object member `name` of `v`, or an empty object. */
export function child(v: JsonValue | undefined, name: string): JsonObject {
  const c = isObject(v) ? v[name] : undefined;
  return isObject(c) ? c : {};
}

/** The entry of list `name` in `v` whose keys equal `keys`. */
export function entry(v: JsonValue | undefined, name: string, keys: Keys): JsonObject | undefined {
  const list = isObject(v) ? v[name] : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.find((e): e is JsonObject => isObject(e) && Object.entries(keys).every(([k, val]) => String(e[k]) === val));
}

/** A network instance's entry in a whole document. */
export function instanceIn(doc: JsonObject, name: string): JsonObject | undefined {
  return entry(doc[`${NI_MODULE}:network-instances`], 'network-instance', { name });
}

/** A protocol entry (`keys` as the engine gives them: instance, then protocol) in a whole document. */
export function protocolIn(doc: JsonObject, keys: readonly Keys[]): JsonObject | undefined {
  const instance = instanceIn(doc, keys[0]?.['name'] ?? '');
  return entry(child(instance, 'protocols'), 'protocol', keys[1] ?? {});
}

/** Every protocol entry of an instance entry. */
export function protocolsOf(instance: JsonObject | undefined): JsonObject[] {
  const list = child(instance, 'protocols')['protocol'];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** A string member, or undefined. */
export function text(v: JsonObject, name: string): string | undefined {
  const x = v[name];
  return typeof x === 'string' ? x : undefined;
}

/** A number member given as a JSON number or a numeric string, or undefined. */
export function num(v: JsonObject, name: string): number | undefined {
  const x = v[name];
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
  return undefined;
}

/** A boolean member with its YANG default. */
export function flag(v: JsonObject, name: string, fallback: boolean): boolean {
  const x = v[name];
  return typeof x === 'boolean' ? x : fallback;
}

/** A value fit for one CLI word or the tail of a line: refuses what the CLI would cut or misread. */
export function cliWord(value: string, what: string): string {
  if (!/^[^\s?]+$/.test(value)) throw new Error(`${what} ${JSON.stringify(value)} cannot be typed at the CLI (spaces or '?')`);
  return value;
}

export function cliText(value: string, what: string): string {
  if (/[?\r\n]/.test(value) || value.trim() !== value || value === '') {
    throw new Error(`${what} ${JSON.stringify(value)} cannot be typed at the CLI ('?', line breaks, or leading/trailing spaces)`);
  }
  return value;
}
