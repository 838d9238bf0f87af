/**
 * The instance path: one value for "this node of the data tree" wherever a path is handed on, from the
 * RESTCONF layer to the datastore, to error-paths, and across the hooks to southbound plugins, so no
 * receiver parses a string the core has just written. It lives here, at the lowest layer, because the
 * instance-identifier type (yang/types) and the data tree (data/path.ts) both speak it.
 *
 * - The value: segments outermost first, each with its module's name (always, not only where it
 *   changes), its node name, and for a list entry its keys (name to value text, in key order), for a
 *   leaf-list entry its value, or for an instance-identifier naming an entry by place, its position.
 * - One renderer, three text forms: RFC 7951 JSON (`/ietf-interfaces:interfaces/interface[name='eth0']`,
 *   the module prefixed on the first node and where it changes), the XML form of RFC 7950 §9.13
 *   (every node and key prefixed, with the caller's prefix of each module), and RFC 8040's URI form
 *   (`/ietf-interfaces:interfaces/interface=eth0`, for `Location`; see `uriKey` for its key values).
 * - One scanner for instance-identifier text (`parseInstanceIdentifier`, prefixes as written, for the
 *   type's two lexical forms) and, on it, the reader of the JSON form into the value.
 *
 * Predicate values are quoted as XPath 1.0 allows (single quotes, double quotes when the value holds a
 * single one, `concat()` when it holds both), and the JSON reader reads `concat()` back, so rendering
 * and reading a path gives the same value. Scanning is one pass with sticky regular expressions: a
 * path of a few segments costs well under a microsecond.
 */

/** One step of an instance path. */
export interface InstancePathSegment {
  /** The name of the module that defines the node (never a prefix). */
  readonly module: string;
  readonly name: string;
  /** One list entry: its key values in text form, by key name, in the list's key order. */
  readonly keys?: Readonly<Record<string, string>>;
  /** One leaf-list entry: its value in text form. */
  readonly value?: string;
  /** One entry by its 1-based place (instance-identifiers of keyless lists and leaf-lists only). */
  readonly position?: number;
}

/** A node of a data tree, outermost segment first; empty for the root of the tree. */
export type InstancePath = readonly InstancePathSegment[];

/** The RFC 7951 member name of segment `i`: module-qualified at the top and where the module changes. */
export function memberName(path: InstancePath, i: number): string {
  const seg = path[i]!;
  return i > 0 && path[i - 1]!.module === seg.module ? seg.name : `${seg.module}:${seg.name}`;
}

// ---------------------------------------------------------------------------------------------------
// Rendering

/** Which text form `renderInstancePath` writes. */
export type InstancePathForm =
  /**
   * RFC 7951 form. `base` is the path of the node the value sits under (a mount point's outer path,
   * say) and `baseModule` that node's module, which decides whether the first segment is qualified.
   */
  | { readonly kind: 'json'; readonly base?: string; readonly baseModule?: string }
  /** RFC 7950 §9.13 XML form: every node and key name carries `prefixFor(module)`. */
  | { readonly kind: 'xml'; readonly prefixFor: (module: string) => string }
  /**
   * RFC 8040 §3.5.3 api-path (`/m:list=k1,k2/child`), qualified at the top and where the module changes
   * (`baseModule` as for JSON); key and leaf-list values as `uriKey` writes them with `keyDelimiter` (as
   * written in URIs, `%22`; null or absent: plain RFC 8040 percent-encoding). A position has no URI form.
   */
  | { readonly kind: 'uri'; readonly baseModule?: string; readonly keyDelimiter?: string | null };

const JSON_FORM: InstancePathForm = { kind: 'json' };

/**
 * Quotes a predicate value as XPath 1.0 allows: single quotes unless the value holds one, then
 * double quotes; a value with both kinds is spelled with concat(), XPath having no escapes.
 */
export function quotePredicate(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  const parts = text.split("'").map((p) => `'${p}'`);
  return `concat(${parts.join(`, "'", `)})`;
}

/** The path as text; the JSON form of the empty path is `/` (or `base` when one is given). */
export function renderInstancePath(path: InstancePath, form: InstancePathForm = JSON_FORM): string {
  if (form.kind === 'uri') return uriPath(path, form.baseModule, form.keyDelimiter ?? null);
  if (form.kind === 'xml') {
    let out = '';
    for (const seg of path) {
      const prefix = form.prefixFor(seg.module);
      out += `/${prefix}:${seg.name}`;
      out += predicates(seg, `${prefix}:`);
    }
    return out === '' ? '/' : out;
  }
  const base = form.base ?? '';
  let out = base === '/' ? '' : base;
  let module = form.baseModule;
  for (const seg of path) {
    out += seg.module === module ? `/${seg.name}` : `/${seg.module}:${seg.name}`;
    out += predicates(seg, '');
    module = seg.module;
  }
  return out === '' ? '/' : out;
}

function predicates(seg: InstancePathSegment, keyPrefix: string): string {
  let out = '';
  if (seg.keys !== undefined) for (const k in seg.keys) out += `[${keyPrefix}${k}=${quotePredicate(seg.keys[k]!)}]`;
  if (seg.value !== undefined) out += `[.=${quotePredicate(seg.value)}]`;
  if (seg.position !== undefined) out += `[${seg.position}]`;
  return out;
}

/** Percent-encodes a value as RFC 8040 §3.5.3 asks: everything but RFC 3986 unreserved characters. */
function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A key or leaf-list value as a URI writes it, in a form RESTCONF's URI reader (restconf/uri-segments.ts)
 * reads back to the same value, since a client must be able to use a `Location` as given: percent-encoded,
 * except that with a key delimiter
 * - a value holding `/` is wrapped in the delimiter with its slashes left bare, since the reader refuses
 *   `%2F` anywhere in a path;
 * - so is a value whose encoded form starts with the delimiter (one starting with `"`): written bare it
 *   would be read as delimited and lose its quotes.
 * Two kinds of value have no form the reader reads back, and get the RFC 8040 form (`%2F`) rather than
 * none: one holding `/` when the key delimiter is disabled, and one where a delimiter character comes
 * right before a `/` (`a"/b`), since the reader ends a delimited key at the first delimiter followed by `/`.
 */
export function uriKey(text: string, keyDelimiter: string | null): string {
  const encoded = percentEncode(text);
  if (keyDelimiter === null || keyDelimiter === '') return encoded;
  const hasSlash = encoded.includes('%2F');
  if (!hasSlash && !encoded.startsWith(keyDelimiter)) return encoded;
  const inner = encoded.replace(/%2F/g, '/');
  if (hasSlash && inner.includes(`${keyDelimiter}/`)) return encoded;
  return `${keyDelimiter}${inner}${keyDelimiter}`;
}

function uriPath(path: InstancePath, baseModule: string | undefined, keyDelimiter: string | null): string {
  let out = '';
  let module = baseModule;
  for (const seg of path) {
    out += seg.module === module ? `/${seg.name}` : `/${seg.module}:${seg.name}`;
    module = seg.module;
    if (seg.position !== undefined) throw new Error(`an entry named by position (${seg.name}[${seg.position}]) has no URI form`);
    if (seg.keys !== undefined) {
      let sep = '=';
      for (const k in seg.keys) {
        out += sep + uriKey(seg.keys[k]!, keyDelimiter);
        sep = ',';
      }
      if (sep === '=') out += sep;
    } else if (seg.value !== undefined) out += `=${uriKey(seg.value, keyDelimiter)}`;
  }
  return out === '' ? '/' : out;
}

// ---------------------------------------------------------------------------------------------------
// Reading

/** One `[...]` of a step: a key, a leaf-list value (`.`), or a 1-based position. */
export type IidPredicate =
  | { readonly kind: 'key'; readonly prefix?: string; readonly name: string; readonly value: string }
  | { readonly kind: 'value'; readonly value: string }
  | { readonly kind: 'position'; readonly position: number };

/** One step of an instance-identifier as written: the prefix is kept as it stands in the text. */
export interface IidStep {
  readonly prefix?: string;
  readonly name: string;
  readonly predicates: readonly IidPredicate[];
}

/** How predicate values may be written besides RFC 7950's plain quoted strings. */
export interface PathSyntax {
  /** `concat('a', "'", 'b')`, as `quotePredicate` writes a value holding both quote kinds. */
  readonly concat?: boolean;
  /**
   * `\"` and `\\` inside double quotes: the older text form the SDK accepted from plugin authors and
   * dry-run clients (never written by the core).
   */
  readonly backslashEscapes?: boolean;
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_.-]*/y;
const POSITIVE = /[1-9][0-9]*/y;

/**
 * Scans an instance-identifier (either lexical form); prefixes are kept as written, for the caller to
 * resolve. With no `syntax`, exactly RFC 7950's grammar (quoted strings without escapes).
 */
export function parseInstanceIdentifier(text: string, syntax: PathSyntax = {}): { steps: IidStep[] } | { error: string } {
  let pos = 0;
  const fail = (reason: string): { error: string } => ({ error: `${reason} at position ${pos + 1}` });
  const skipSpace = (): void => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
  };
  const identifier = (): string | undefined => {
    IDENTIFIER.lastIndex = pos;
    const m = IDENTIFIER.exec(text);
    if (!m) return undefined;
    pos += m[0].length;
    return m[0];
  };
  const qualified = (): { prefix?: string; name: string } | undefined => {
    const first = identifier();
    if (first === undefined) return undefined;
    if (text[pos] !== ':') return { name: first };
    pos++;
    const name = identifier();
    return name === undefined ? undefined : { prefix: first, name };
  };
  const quoted = (): string | undefined => {
    const q = text[pos];
    if (q !== "'" && q !== '"') return undefined;
    if (q === '"' && syntax.backslashEscapes) return escaped();
    const end = text.indexOf(q, pos + 1);
    if (end < 0) return undefined;
    const value = text.slice(pos + 1, end);
    pos = end + 1;
    return value;
  };
  const escaped = (): string | undefined => {
    let value = '';
    for (let i = pos + 1; i < text.length; i++) {
      const c = text[i]!;
      if (c === '"') {
        pos = i + 1;
        return value;
      }
      if (c === '\\' && i + 1 < text.length) value += text[++i]!;
      else value += c;
    }
    return undefined;
  };
  const literal = (): string | undefined => {
    if (!syntax.concat || !text.startsWith('concat(', pos)) return quoted();
    pos += 7;
    let value = '';
    for (;;) {
      skipSpace();
      const part = quoted();
      if (part === undefined) return undefined;
      value += part;
      skipSpace();
      if (text[pos] === ')') {
        pos++;
        return value;
      }
      if (text[pos] !== ',') return undefined;
      pos++;
    }
  };

  const steps: IidStep[] = [];
  if (text.length === 0) return { error: 'an instance-identifier cannot be empty' };
  while (pos < text.length) {
    if (text[pos] !== '/') return fail('expected "/"');
    pos++;
    const node = qualified();
    if (!node) return fail('expected a node name');
    const predicates: IidPredicate[] = [];
    while (text[pos] === '[') {
      pos++;
      skipSpace();
      let predicate: IidPredicate;
      POSITIVE.lastIndex = pos;
      const posMatch = POSITIVE.exec(text);
      if (posMatch) {
        pos += posMatch[0].length;
        predicate = { kind: 'position', position: Number(posMatch[0]) };
      } else {
        let key: { prefix?: string; name: string } | undefined;
        if (text[pos] === '.') pos++;
        else if (!(key = qualified())) return fail('expected a key name, "." or a position');
        skipSpace();
        if (text[pos] !== '=') return fail('expected "="');
        pos++;
        skipSpace();
        const value = literal();
        if (value === undefined) return fail('expected a quoted value');
        predicate = key ? { kind: 'key', ...key, value } : { kind: 'value', value };
      }
      skipSpace();
      if (text[pos] !== ']') return fail('expected "]"');
      pos++;
      predicates.push(predicate);
    }
    steps.push({ ...node, predicates });
  }
  return { steps };
}

/** Sets a key value as an own member even for a key named `__proto__` (a valid YANG identifier). */
export function setKey(keys: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(keys, name, { value, enumerable: true, writable: true, configurable: true });
  else keys[name] = value;
}

export type InstancePathResult = { readonly ok: true; readonly path: InstancePath } | { readonly ok: false; readonly error: string };

/**
 * Reads the RFC 7951 JSON form into the value; `/` alone is the root. A prefix is a module name and
 * holds until the next one; a key's own prefix is dropped (keys are in their list's module). It checks
 * the syntax only: whether the nodes exist is the schema's business. Reads `concat()` by default, so
 * what `renderInstancePath` writes reads back.
 */
export function parseJsonInstancePath(text: string, syntax: PathSyntax = { concat: true }): InstancePathResult {
  if (text === '/') return { ok: true, path: [] };
  const parsed = parseInstanceIdentifier(text, syntax);
  if ('error' in parsed) return { ok: false, error: parsed.error };
  const path: InstancePathSegment[] = [];
  let module: string | undefined;
  const last = parsed.steps.length - 1;
  for (let i = 0; i <= last; i++) {
    const step = parsed.steps[i]!;
    module = step.prefix ?? module;
    if (module === undefined) return { ok: false, error: `the first node "${step.name}" must be module-qualified (module:name)` };
    let keys: Record<string, string> | undefined;
    let value: string | undefined;
    let position: number | undefined;
    for (const p of step.predicates) {
      if (p.kind === 'key') {
        keys ??= {};
        if (Object.hasOwn(keys, p.name)) return { ok: false, error: `key "${p.name}" of node "${step.name}" is given twice` };
        setKey(keys, p.name, p.value);
      } else if (p.kind === 'value') {
        if (value !== undefined) return { ok: false, error: `node "${step.name}" has two [.=...] predicates` };
        value = p.value;
      } else {
        if (position !== undefined) return { ok: false, error: `node "${step.name}" has two positions` };
        position = p.position;
      }
    }
    if (value !== undefined && (keys !== undefined || i !== last))
      return { ok: false, error: 'a [.=...] predicate may only end the path, on a leaf-list' };
    if (position !== undefined && (keys !== undefined || value !== undefined))
      return { ok: false, error: `node "${step.name}" mixes a position with other predicates` };
    path.push({
      module,
      name: step.name,
      ...(keys !== undefined ? { keys } : {}),
      ...(value !== undefined ? { value } : {}),
      ...(position !== undefined ? { position } : {}),
    });
  }
  return { ok: true, path };
}
