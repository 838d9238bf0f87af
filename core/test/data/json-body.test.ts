/**
 * parseJsonBody, the one parse of a client's JSON text: an object holding one member twice is refused
 * naming the member, its JSON Pointer, line and column, whatever makes the cheap count differ (escaped
 * names, strings holding `":`, whitespace before a colon, nesting past the recursion limit); texts the
 * cheap count cannot clear but that repeat nothing are accepted as JSON.parse reads them.
 */
import test from 'ava';
import { JsonBodyError, parseJsonBody } from '../../src/data/json-syntax';

function refusal(text: string): JsonBodyError {
  try {
    parseJsonBody(text);
  } catch (e) {
    if (e instanceof JsonBodyError) return e;
    throw e;
  }
  throw new Error(`accepted: ${text.slice(0, 100)}`);
}

test('a member given twice is named with its pointer, line and column', (t) => {
  const e = refusal('{\n  "a": 1,\n  "b": {"c": [1, {"d": 1, "d": 2}]}\n}');
  t.is(e.kind, 'repeated-member');
  t.is(e.message, 'malformed JSON at line 3, column 27: member "d" appears twice in one object, at /b/c/1/d');
  t.is(refusal('{"a":1,"a":2}').message, 'malformed JSON at line 1, column 8: member "a" appears twice in one object, at /a');
  t.regex(refusal('{"a/b~":{"x":1,"x":1}}').message, /at \/a~1b~0\/x$/);
  t.regex(refusal('[{}, "s", {"x": 1, "x": 1}]').message, /at \/2\/x$/);
  t.regex(refusal('{"a":1,"\\u0061":2}').message, /member "a" appears twice/, 'names are compared unescaped');
  t.regex(refusal('{"__proto__":1,"__proto__":2}').message, /"__proto__" appears twice/);
  t.regex(refusal('{"":1,"":2}').message, /member "" appears twice/);
});

test('the cheap count cannot hide a repeat: whitespace before a colon, strings holding ":', (t) => {
  // one repeat and one name spaced from its colon: a count of `":` alone would match the parsed members
  t.regex(refusal('{"a":1,"a":2,"b" :3}').message, /"a" appears twice/);
  t.regex(refusal('{"a" :1,"a"\n:2}').message, /"a" appears twice/);
  t.regex(refusal('{"v":"x\\":","a":1,"a":2}').message, /"a" appears twice/);
});

test('texts the cheap count cannot clear, with no repeat, parse as JSON.parse reads them', (t) => {
  for (const text of [
    '{"v":"x\\":"}',
    '{"v":": y", "w": " :"}',
    '{"a\\":":1, "a":2}',
    '{ "a" : { "a" : [ { "a" : 1 } , { "a" : 2 } ] } }',
    '[":", {"k": "\\\\"}, "\\\\\\":"]',
    '{"x": [], "y": {}, "z": [{}, []], "w": "\\\\"}',
  ]) {
    t.deepEqual(parseJsonBody(text), JSON.parse(text), text);
  }
});

test('nesting past the recursion limit is counted, and a repeat deep inside is found', (t) => {
  const depth = 100_000;
  const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  t.deepEqual(Object.keys(parseJsonBody(deep) as object), ['a']);
  const e = refusal(`${'[{"a":'.repeat(depth)}{"x":1,"x":2}${'}]'.repeat(depth)}`);
  t.regex(e.message, /"x" appears twice in one object, at \.\.\.(\/a\/0)+\/a\/x$/);
  t.true(e.message.length < 400, 'the pointer is cut');
  t.is(refusal(deep.slice(0, -1)).kind, 'syntax');
});

test('a syntax fault keeps its line and column', (t) => {
  const e = refusal('{\n  "a": [1,\n  }');
  t.is(e.kind, 'syntax');
  t.regex(e.message, /^malformed JSON at line 3, column 3: /);
});
