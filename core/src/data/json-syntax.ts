/**
 * Reading a client's JSON text. `parseJsonBody` is the one parse every request body goes through
 * (data bodies, RPC and action input, YANG Patch, the uniconfig configuration route, plugin routes
 * through the SDK): `JSON.parse`, plus the refusal of an object holding one member twice, which
 * `JSON.parse` accepts by keeping the last value and dropping the others without a word (RFC 8259 §4
 * only says names SHOULD be unique). Both faults are `malformed-message` (docs/restconf-api.md#request-limits).
 *
 * Where JSON text goes wrong. `JSON.parse` does not always say (Node 20 gives no position for many
 * errors), and an operator needs a line and column, so after a failed parse `jsonFaultOffset` walks
 * the text once more, iteratively and in linear time, and returns the offset of the first fault.
 *
 * A member given twice, cheaply. Every member's name ends with `"`, optional whitespace and `:`; in
 * valid JSON nothing else has that shape outside a string, and inside one only an escaped quote or a
 * string's opening quote can come before a colon. So counting the shape gives at least the members
 * the text holds, and the parsed value holds fewer exactly when a name repeats: equal counts prove
 * there is no repeat. Otherwise a precise scan (a small tokenizer keeping each open object's names,
 * unescaped) finds the repeat or clears the text. On the 11 MB text of the 100,000-entry list (400,002
 * members) the count takes about 9 ms (String indexOf of ':' and a look back; indexOf of '":' took
 * 25) and the walk counting the parsed members about 2 ms, beside about 55 ms for JSON.parse and
 * 210-230 ms for decoding and validating; the precise scan, run only when a string holds the shape or a
 * name repeats, about 120 ms more.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON refuses raw control characters inside a string (RFC 8259 §7), so the pattern names them
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

/** The offset of the first syntax fault in `text`, or -1 when the text is valid JSON. */
export function jsonFaultOffset(text: string): number {
  const n = text.length;
  const stack: number[] = []; // char codes of the open containers: '{' or '['
  let i = 0;
  let state: 'value' | 'key' | 'after' = 'value';
  const skipSpace = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      i++;
    }
  };
  const token = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  for (;;) {
    skipSpace();
    if (state === 'after') {
      if (stack.length === 0) return i < n ? i : -1;
      const c = text[i];
      const top = stack[stack.length - 1];
      if (c === ',') {
        i++;
        state = top === 123 ? 'key' : 'value';
      } else if ((c === '}' && top === 123) || (c === ']' && top === 91)) {
        i++;
        stack.pop();
      } else return i;
    } else if (state === 'key') {
      if (text[i] !== '"' || !token(STRING)) return i;
      skipSpace();
      if (text[i] !== ':') return i;
      i++;
      state = 'value';
    } else {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c.charCodeAt(0));
        i++;
        skipSpace();
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          stack.pop();
          state = 'after';
        } else state = c === '{' ? 'key' : 'value';
      } else if ((c === '"' && token(STRING)) || token(NUMBER) || token(LITERAL)) {
        state = 'after';
      } else {
        return i;
      }
    }
  }
}

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** A JSON text refused by `parseJsonBody`: its message says what and where (line and column). */
export class JsonBodyError extends Error {
  constructor(
    message: string,
    /** Character offset of the fault in the text, -1 when unknown. */
    readonly offset: number,
    /** `syntax`: not JSON at all; `repeated-member`: JSON, but an object holds one member twice. */
    readonly kind: 'syntax' | 'repeated-member',
  ) {
    super(message);
    this.name = 'JsonBodyError';
  }
}

/**
 * Parses a client's JSON text: `JSON.parse`, refusing a syntax fault (with its line and column) and an
 * object holding one member twice (naming the member, its place as a JSON Pointer, line and column).
 * Throws JsonBodyError; the caller answers it as `malformed-message`.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const offset = jsonFaultOffset(text);
    const where = offset >= 0 ? lineColumn(text, offset) : undefined;
    throw new JsonBodyError(`malformed JSON${where ? ` at line ${where.line}, column ${where.column}` : ''}: ${message}`, offset, 'syntax');
  }
  if (typeof value === 'object' && value !== null && nameEnds(text) !== memberCount(value)) {
    const repeat = repeatedMember(text);
    if (repeat !== undefined) {
      const { line, column } = lineColumn(text, repeat.offset);
      throw new JsonBodyError(
        `malformed JSON at line ${line}, column ${column}: member ${quoted(repeat.name)} appears twice in one object, at ${shortened(repeat.pointer)}`,
        repeat.offset,
        'repeated-member',
      );
    }
  }
  return value;
}

/** How many `"` followed by optional whitespace and `:` the text holds (at least its members; see the top comment). */
function nameEnds(text: string): number {
  let count = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
    let j = i - 1;
    let c = text.charCodeAt(j);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(--j);
    if (c === 34) count++;
  }
  return count;
}

/** Objects nested deeper than this are counted by an explicit stack instead of recursion. */
const RECURSION_LIMIT = 256;

/** How many members the objects of a parsed value hold. */
function memberCount(value: object): number {
  return countDeep(value, 0);
}

// Recursion (about 2 ms on the 100,000-entry list) is some ten times faster here than a stack of
// pending values; a value nested past RECURSION_LIMIT (JSON.parse takes any depth) goes to `countFlat`.
function countDeep(value: object, depth: number): number {
  if (depth > RECURSION_LIMIT) return countFlat(value);
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) count += countDeep(item, depth + 1);
    }
  } else {
    for (const name in value) {
      count++;
      const item: unknown = (value as Record<string, unknown>)[name];
      if (typeof item === 'object' && item !== null) count += countDeep(item, depth + 1);
    }
  }
  return count;
}

function countFlat(value: object): number {
  let count = 0;
  const pending: object[] = [value];
  while (pending.length > 0) {
    const v = pending.pop()!;
    if (Array.isArray(v)) {
      for (const item of v as unknown[]) if (typeof item === 'object' && item !== null) pending.push(item);
    } else {
      for (const name in v) {
        count++;
        const item: unknown = (v as Record<string, unknown>)[name];
        if (typeof item === 'object' && item !== null) pending.push(item);
      }
    }
  }
  return count;
}

/** Names an object may hold before the precise scan looks them up in a Set instead of a list. */
const FEW_NAMES = 16;

/** The offset of the quote closing the string whose opening quote is at `i` (valid JSON text). */
function stringEnd(text: string, i: number): number {
  let end = text.indexOf('"', i + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** The value of the string from `i` to `end` (its quotes), unescaped only when it holds an escape. */
function stringAt(text: string, i: number, end: number): string {
  const raw = text.slice(i + 1, end);
  return raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
}

/**
 * The first member whose name its object already holds, in valid JSON text: its name, the offset of
 * that name, and the JSON Pointer (RFC 6901) of the member. Linear in the text, and allocating almost
 * nothing (an allocation per container made the 100,000-entry list's scan twice as slow, mostly in
 * collection): the state of each open container is kept per depth in typed arrays, the names of the
 * open objects on one stack, searched in turn while an object has few, then in a Set.
 */
function repeatedMember(text: string): { name: string; offset: number; pointer: string } | undefined {
  let capacity = 64;
  let isObject = new Uint8Array(capacity);
  let index = new Int32Array(capacity); // an array's current index
  let start = new Int32Array(capacity); // where an object's names begin in `names`
  let nameAt = new Int32Array(capacity); // the offset of the container's name in its parent object, or -1
  const names: string[] = [];
  const sets = new Map<number, Set<string>>(); // by depth: the names of an object past FEW_NAMES
  let depth = -1;
  let expectName = false;
  let lastNameAt = -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (expectName) {
        const name = stringAt(text, i, end);
        const from = start[depth]!;
        let set = sets.size > 0 ? sets.get(depth) : undefined;
        if (set === undefined && names.length - from >= FEW_NAMES) {
          set = new Set(names.slice(from));
          sets.set(depth, set);
        }
        let seen = false;
        if (set === undefined) for (let k = from; k < names.length && !seen; k++) seen = names[k] === name;
        else seen = set.has(name);
        if (seen) return { name, offset: i, pointer: pointerOf(text, depth, nameAt, index, name) };
        if (set === undefined) names.push(name);
        else set.add(name);
        lastNameAt = i;
        expectName = false;
      }
      i = end;
    } else if (c === 123 || c === 91) {
      if (depth + 1 === capacity) {
        capacity *= 2;
        const grown = <T extends Uint8Array | Int32Array>(from: T, to: T): T => {
          to.set(from);
          return to;
        };
        isObject = grown(isObject, new Uint8Array(capacity));
        index = grown(index, new Int32Array(capacity));
        start = grown(start, new Int32Array(capacity));
        nameAt = grown(nameAt, new Int32Array(capacity));
      }
      const inObject = depth >= 0 && isObject[depth] === 1;
      depth++;
      isObject[depth] = c === 123 ? 1 : 0;
      index[depth] = 0;
      start[depth] = names.length;
      nameAt[depth] = inObject ? lastNameAt : -1;
      expectName = c === 123;
    } else if (c === 125 || c === 93) {
      names.length = start[depth]!;
      if (sets.size > 0) sets.delete(depth);
      depth--;
      expectName = false;
    } else if (c === 44) {
      if (isObject[depth] === 1) expectName = true;
      else index[depth]!++;
    }
  }
  return undefined;
}

/** The JSON Pointer of member `name` of the object open at `depth`. */
function pointerOf(text: string, depth: number, nameAt: Int32Array, index: Int32Array, name: string): string {
  const escaped = (s: string) => (s.includes('~') || s.includes('/') ? s.replace(/~/g, '~0').replace(/\//g, '~1') : s);
  let out = '';
  for (let k = 1; k <= depth; k++) {
    const at = nameAt[k]!;
    out += `/${at < 0 ? String(index[k - 1]) : escaped(stringAt(text, at, stringEnd(text, at)))}`;
  }
  return `${out}/${escaped(name)}`;
}

/** A name for a message: quoted, and cut when long (a client may send any length). */
function quoted(name: string): string {
  const text = JSON.stringify(name);
  return text.length > 80 ? `${text.slice(0, 77)}..."` : text;
}

/** A pointer for a message: when longer than 200 characters, its last segments within them. */
function shortened(pointer: string): string {
  if (pointer.length <= 200) return pointer;
  const cut = pointer.indexOf('/', pointer.length - 200);
  return `...${pointer.slice(cut < 0 ? pointer.length - 200 : cut)}`;
}
