/**
 * XML is read one way: by the tokenizer in core/src/data/xml-tokenizer.ts (the data decoder, the
 * element reader of NETCONF messages and YANG Patch envelopes, and through the SDK the NETCONF plugin).
 * This reads every source file of the core, the SDK and the plugins (from the source tree, beside this
 * test's compiled place) and fails on an import of fast-xml-parser, or on a regular expression that
 * reads XML markup: one that matches a start or end tag, an XML declaration or an attribute list. The
 * tokenizer itself is exempt: its predicted-element matchers (built in data/xml-decode-fast.ts from
 * text it tokenized once) are part of it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';

const ROOT = path.resolve(__dirname, '../../../..');

/** Where XML may be matched by a regular expression: the tokenizer's own predicted-element fast path. */
const EXEMPT = new Set(['core/src/data/xml-decode-fast.ts']);

/** Markup a regular expression reads XML by: `<` then a name pattern, an end tag, a declaration, `[^>]*>`. */
const XML_IN_PATTERN =
  /<(?:\\w|\(\?:|\(\[A-Za-z|\[A-Za-z|\\\/|\\\?xml|\?xml|\$\{NAME|\(\$\{NAME|\(\\w|\/\?\(|\(\/)|\[\^>\]\*\??>|\[\^<\]\*<\\\//;
/** A line that holds a regular expression: a literal after `(`, `=`, `,`, `:` or `return`, or a RegExp built from text. */
const HOLDS_PATTERN = /(?:^|[=(,:!&|?]|return)\s*\/[^/*\s]|new RegExp\(|RegExp\(/;

/** Lines of `text` that read XML with a regular expression or import fast-xml-parser, as `line: text`. */
function xmlReadingLines(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.trim();
    if (code.startsWith('*') || code.startsWith('//')) return;
    if (
      /from\s+['"]fast-xml-parser['"]|require\(['"]fast-xml-parser['"]\)/.test(line) ||
      (HOLDS_PATTERN.test(line) && XML_IN_PATTERN.test(line))
    )
      found.push(`${i + 1}: ${code}`);
  });
  return found;
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

test('the check finds XML read by a regular expression or by fast-xml-parser in each form it looks for', (t) => {
  t.is(xmlReadingLines("import { XMLParser } from 'fast-xml-parser';").length, 1);
  t.is(xmlReadingLines('const ROOT = /^\\s*<(\\w+:)?notification\\b/;').length, 1);
  t.is(xmlReadingLines('const START = /^\\s*(?:<\\?xml[^>]*\\?>\\s*)?<([A-Za-z_][\\w.-]*:)?/;').length, 1);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text checked holds template placeholders
  t.is(xmlReadingLines('const OK = new RegExp(`\\\\s*<(?:(${NAME}):)?ok\\\\s*/>`, "y");').length, 1);
  t.is(xmlReadingLines("if (/^<(?:[\\w.-]+:)?configuration\\b[^>]*\\/>$/.test(body)) return '';").length, 1);
  t.is(xmlReadingLines('const m = /<\\/\\1\\s*>$/.exec(body);').length, 1);
  t.is(xmlReadingLines('const SECRET = /(<(?:[A-Za-z_][\\w.-]*:)?password\\b[^>]*>)[^<]*/gi;').length, 1);
  // writing XML, comparing numbers and quoting markup in messages are not reading it
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text checked holds template placeholders
  t.deepEqual(xmlReadingLines('out += `<${name} xmlns="${ns}">`; if (a < b / 2) x = `</${name}>`;'), []);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text checked holds template placeholders
  t.deepEqual(xmlReadingLines('throw new Error(`expected <hello>, got <${root.name}>`);'), []);
  t.deepEqual(xmlReadingLines(' * matched by a pattern such as /<\\w+[^>]*>/ in a comment'), []);
});

test('no source file of the core, the SDK or a plugin reads XML with a regular expression or fast-xml-parser', (t) => {
  const dirs = [path.join(ROOT, 'core/src'), path.join(ROOT, 'sdk/src')];
  for (const plugin of fs.readdirSync(path.join(ROOT, 'plugins'))) dirs.push(path.join(ROOT, 'plugins', plugin, 'src'));
  const files = dirs.flatMap(sourceFiles);
  t.true(files.length > 150, `read ${files.length} files`);
  const offenders = files
    .map((f) => path.relative(ROOT, f))
    .filter((f) => !EXEMPT.has(f))
    .flatMap((f) => xmlReadingLines(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((line) => `${f}:${line}`));
  t.deepEqual(offenders, []);
});
