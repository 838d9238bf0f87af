/**
 * Where JSON text goes wrong. `JSON.parse` does not always say (Node 20 gives no position for many
 * errors), and an operator needs a line and column, so after a failed parse this scanner walks the
 * text once more, iteratively and in linear time, and returns the offset of the first fault.
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
