/**
 * The `Location` of a created resource: the request's URI plus the new child's segment, in the URI form
 * of the one instance path renderer (yang/instance-path.ts writes `[module:]name[=k1,k2]` and its key
 * values, in a form restconf/uri-segments.ts reads back), encoded as express's `res.location` did.
 */
import type { PathStep } from '../data/edit';
import { instancePathOf } from '../data/path';
import { renderInstancePath } from '../yang/instance-path';

/**
 * A `Location` value as express's `res.location` wrote it (the `encodeurl` package): characters a URL
 * may not hold are percent-encoded, escapes already there are kept, lone surrogates become U+FFFD.
 */
export function encodeLocation(url: string): string {
  return url
    .replace(/([\uD800-\uDBFF][\uDC00-\uDFFF])|[\uD800-\uDFFF]/g, (_, pair: string | undefined) => pair ?? '\uFFFD')
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]+|%+(?![0-9A-Fa-f]{2})){1,1024}/g, encodeURI);
}

/**
 * The URI segment of a step, without its leading `/`; `parentModule` is the module of the step before
 * (undefined at the top), `keyDelimiter` the key delimiter in force for the request.
 */
export function resourceSegment(step: PathStep, parentModule: string | undefined, keyDelimiter: string | null): string {
  const form = { kind: 'uri', keyDelimiter, ...(parentModule !== undefined ? { baseModule: parentModule } : {}) } as const;
  return renderInstancePath(instancePathOf([step]), form).slice(1);
}
