/**
 * `content=config|nonconfig|all` (RFC 8040 §4.8.1): which descendants a GET returns, applied to a
 * tree that holds both configuration and state (the caller merges the two datastores for `all`). The
 * cut itself is data/content.ts, shared with the mount codec.
 */
import { cutContent } from '../../data/content';
import { badQuery } from '../errors';
import type { ReadTarget } from './target';

export type ContentMode = 'config' | 'nonconfig' | 'all';

/** Parses the value of `content`. */
export function parseContent(value: string): ContentMode {
  if (value === 'config' || value === 'nonconfig' || value === 'all') return value;
  throw badQuery('content', `'${value}' is not config, nonconfig or all`);
}

/** The part of `target` that `mode` selects; undefined when nothing is left. */
export function selectContent<T extends ReadTarget>(target: T, mode: ContentMode): T | undefined {
  if (mode === 'all') return target;
  return cutContent(target, mode);
}
