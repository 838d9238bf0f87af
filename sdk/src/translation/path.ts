/**
 * Paths as the translation engine reads them: schema paths of registrations (`/m:a/b/c`) and instance
 * paths of requests (`/m:a/b[name='eth0']/c`, RFC 7951 instance-identifier form). Segments are kept as
 * RFC 7951 JSON member names: module-qualified at the top and where the module changes, bare elsewhere,
 * so they index the JSON documents directly.
 */

export interface SchemaPath {
  readonly segments: readonly string[];
}

export interface InstanceSegment {
  readonly member: string;
  /** Key predicates given for this segment, if any. */
  readonly keys?: Readonly<Record<string, string>>;
}

export type ParseResult<T> = { readonly ok: true; readonly path: T } | { readonly ok: false; readonly error: string };

const NAME = /^(?:([A-Za-z_][\w.-]*):)?([A-Za-z_][\w.-]*)$/;
const MAX_PATH = 4096;

/** Parses `/module:top/child/other-module:aug`, normalising prefixes to RFC 7951 member names. */
export function parseSchemaPath(text: string): ParseResult<SchemaPath> {
  const r = parseInstancePath(text);
  if (!r.ok) return r;
  if (r.path.some((s) => s.keys))
    return { ok: false, error: 'a registration path names nodes, not entries: drop the [key=...] predicates' };
  return { ok: true, path: { segments: r.path.map((s) => s.member) } };
}

/** Parses an RFC 7951 instance-identifier; `/` alone is the root (no segments). */
export function parseInstancePath(text: string): ParseResult<InstanceSegment[]> {
  if (typeof text !== 'string' || !text.startsWith('/')) return { ok: false, error: 'a path starts with /' };
  if (text.length > MAX_PATH) return { ok: false, error: `path longer than ${MAX_PATH} characters` };
  if (text === '/') return { ok: true, path: [] };
  const segments: InstanceSegment[] = [];
  let module: string | undefined;
  let i = 1;
  while (i <= text.length) {
    let j = i;
    while (j < text.length && text[j] !== '/' && text[j] !== '[') j++;
    const m = NAME.exec(text.slice(i, j));
    if (!m) return { ok: false, error: `bad node name ${JSON.stringify(text.slice(i, j))} at column ${i + 1}` };
    const [, prefix, name] = m;
    if (segments.length === 0 && !prefix) return { ok: false, error: 'the first node must be module-qualified (module:name)' };
    const member = prefix && prefix !== module ? `${prefix}:${name}` : name!;
    if (prefix) module = prefix;
    let keys: Record<string, string> | undefined;
    while (text[j] === '[') {
      const pred = /^\[\s*([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)\s*=\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)")\s*\]/.exec(
        text.slice(j, j + 1100),
      );
      if (!pred) return { ok: false, error: `bad key predicate at column ${j + 1}` };
      keys ??= {};
      const keyName = pred[1]!.includes(':') ? pred[1]!.split(':')[1]! : pred[1]!;
      keys[keyName] = pred[2] ?? pred[3]!.replace(/\\(.)/g, '$1');
      j += pred[0].length;
    }
    segments.push(keys ? { member, keys } : { member });
    if (j >= text.length) break;
    if (text[j] !== '/') return { ok: false, error: `unexpected ${JSON.stringify(text[j])} at column ${j + 1}` };
    i = j + 1;
    if (i === text.length) return { ok: false, error: 'path ends with /' };
  }
  return { ok: true, path: segments };
}

/** Formats an instance path for messages: `/m:a/b[name='eth0']`. */
export function formatInstancePath(segments: readonly InstanceSegment[]): string {
  return (
    '/' +
    segments
      .map(
        (s) =>
          s.member +
          Object.entries(s.keys ?? {})
            .map(([k, v]) => `[${k}=${quote(v)}]`)
            .join(''),
      )
      .join('/')
  );
}

function quote(v: string): string {
  return v.includes("'") ? `"${v.replace(/["\\]/g, '\\$&')}"` : `'${v}'`;
}
