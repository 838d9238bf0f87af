/**
 * Writing RESTCONF URI segments (the inverse of uri.ts): `[module:]name[=k1,k2]`, with key values in
 * their text form and every character RFC 8040 §3.5.3 reserves percent-encoded. Used for `Location`.
 */
import type { PathStep } from '../data/edit';
import { valueText } from '../data/path';
import type { LeafValue } from '../data/tree';

/** Percent-encodes a key value: everything but RFC 3986 unreserved characters. */
export function encodeKey(value: LeafValue): string {
  return encodeURIComponent(valueText(value)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The URI segment of a step; `parentModule` is the module of the step before (undefined at the top). */
export function resourceSegment(step: PathStep, parentModule: string | undefined): string {
  const module = step.schema.module.name;
  const name = module === parentModule ? step.schema.name : `${module}:${step.schema.name}`;
  if (step.keys !== undefined) return `${name}=${step.keys.map(encodeKey).join(',')}`;
  if (step.value !== undefined) return `${name}=${encodeKey(step.value)}`;
  return name;
}
