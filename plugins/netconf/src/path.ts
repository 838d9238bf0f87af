/**
 * Instance paths as the NETCONF southbound reads them: the value the core hands over (or RFC 7951 text
 * from the dry run's input or a test, read by the SDK with the core's one reader), seen as
 * RFC 7951 member names with keys and, for a leaf-list entry target, its `value`, which is how the filter
 * and edit-config builders walk it. Nothing here splits a path string.
 */
import { memberSegments, renderInstancePath, toInstancePath, type InstancePath, type InstanceSegment } from '@rosetta/sdk';

/** One path segment; `value` selects one leaf-list entry. */
export type DeviceSegment = InstanceSegment;

export type DevicePathResult = { ok: true; path: DeviceSegment[] } | { ok: false; error: string };

/** The path under the mount point as member segments; `/` (or the empty value) is the whole tree. */
export function parseDevicePath(path: InstancePath | string): DevicePathResult {
  const r = toInstancePath(path);
  if (!r.ok) return r;
  if (r.path.some((s) => s.position !== undefined))
    return { ok: false, error: 'a device path names entries by key or value, not position' };
  return { ok: true, path: memberSegments(r.path) };
}

/** The path as RFC 7951 text, for messages. */
export function pathText(path: InstancePath | string): string {
  return typeof path === 'string' ? path : renderInstancePath(path);
}
