/**
 * Error entries that must not echo a secret. The decoders name the value at fault in their messages
 * (`invalid value "..." for 'x': ...`), which is what an operator wants, except for a leaf marked
 * `rosetta-secret:sensitive`: a 400 about a password would send the password back, and to the log.
 * Here, just before an error is answered, an entry whose error-path names a sensitive leaf gets a
 * message naming the leaf and its type's rules instead; and a JSON syntax error loses the piece of the
 * body that V8 quotes in its message (`Unexpected token 'h', ..."token": hunter2"... is not valid JSON`),
 * since the body may be a secret's.
 */
import { resolveChild, tableFor } from '../data/children';
import { isSensitive } from '../datastore/sensitive';
import type { LeafSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { RestconfError, type RestconfErrorEntry } from './errors';

/** The schema node an RFC 7951 instance path names in `ctx`, predicates skipped; undefined when none. */
export function schemaAtPath(ctx: SchemaContext, path: string): SchemaNode | undefined {
  let node: SchemaNode | undefined;
  let i = path.startsWith('/') ? 1 : 0;
  while (i < path.length) {
    let name = '';
    while (i < path.length && path[i] !== '/' && path[i] !== '[') name += path[i++];
    // Skip predicates, quotes respected: a key value may hold '/' or ']'.
    while (path[i] === '[') {
      let quote = '';
      for (i++; i < path.length; i++) {
        const c = path[i]!;
        if (quote !== '') {
          if (c === quote) quote = '';
        } else if (c === "'" || c === '"') quote = c;
        else if (c === ']') break;
      }
      if (i >= path.length) return undefined; // an unclosed predicate
      i++;
    }
    if (path[i] === '/') i++;
    else if (i < path.length) return undefined;
    const child = resolveChild(tableFor(node, ctx), name)?.schema as SchemaNode | undefined;
    if (child === undefined) return undefined;
    node = child;
  }
  return node;
}

/** The rules of a sensitive leaf's type, for a message that cannot show the value. */
function typeRules(leaf: LeafSchema): string {
  const rules = [`type ${leaf.type.name}`];
  if (leaf.type.length !== undefined) rules.push(`length ${leaf.type.length.source}`);
  for (const p of leaf.type.patterns) rules.push(`${p.inverted ? 'not matching' : 'pattern'} '${p.source}'`);
  return rules.join(', ');
}

/** Tags whose messages are about the presence of a node, never its value: kept as they are. */
const VALUELESS_TAGS: ReadonlySet<string> = new Set([
  'data-missing',
  'data-exists',
  'missing-element',
  'unknown-element',
  'access-denied',
  'lock-denied',
  'in-use',
]);

const V8_SNIPPET = /Unexpected token .*? is not valid JSON$/s;

/** `entry` with no secret in its message. */
function withheldEntry(entry: RestconfErrorEntry, ctx: SchemaContext): RestconfErrorEntry {
  if (entry.tag === 'malformed-message' && V8_SNIPPET.test(entry.message)) {
    return { ...entry, message: entry.message.replace(V8_SNIPPET, 'unexpected character') };
  }
  if (entry.path === undefined) return entry;
  if (VALUELESS_TAGS.has(entry.tag)) return entry;
  const node = schemaAtPath(ctx, entry.path);
  if (node === undefined || !isSensitive(node)) return entry;
  const { info: _info, ...rest } = entry; // error-info could carry the value too
  return {
    ...rest,
    message: `the value of '${node.name}' is not accepted (${typeRules(node)}); the value of a sensitive leaf is not shown`,
  };
}

/** The entries of an error answer with no secret in their messages (the same array when none changed). */
export function withheldEntries(entries: readonly RestconfErrorEntry[], ctx: SchemaContext): readonly RestconfErrorEntry[] {
  let out: RestconfErrorEntry[] | undefined;
  entries.forEach((entry, i) => {
    const safe = withheldEntry(entry, ctx);
    if (safe !== entry) (out ??= [...entries])[i] = safe;
  });
  return out ?? entries;
}

/** `error` with no secret in its messages (the same error when none changed). */
export function withheldError(error: RestconfError, ctx: SchemaContext): RestconfError {
  const entries = withheldEntries(error.errors, ctx);
  return entries === error.errors ? error : new RestconfError(error.status, entries, { ...error.headers });
}
