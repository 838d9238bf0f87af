/**
 * The instance path value of RFC 7951 text, for tests that build a hook context by hand: the core hands
 * plugins the value, never text, and a test states the path most readably as text. Read with the SDK's
 * reader (the core's one reader of the JSON form); malformed text throws, failing the test at its set-up.
 */
import type { InstancePath } from '@rosetta/core';
import { toInstancePath } from '../translation/path';

/** The value of `text` (`/` is the root); throws on text that is not an RFC 7951 instance path. */
export function pathValue(text: string): InstancePath {
  const read = toInstancePath(text);
  if (!read.ok) throw new Error(`not an instance path: ${text}: ${read.error}`);
  return read.path;
}
