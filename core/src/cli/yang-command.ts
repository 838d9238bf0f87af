/**
 * `rosetta yang tree|check|validate`: the YANG tools a network engineer reaches for, with yanglint's
 * options where they mean the same (`-p DIR`, `-F MODULE:FEATURE,...`, `-i`, `-P PATH`, `-t`).
 * Module arguments are file paths or module names; like yanglint, a file's own folder is searched too.
 * `validate` validates as yanglint does: every leafref and every instance-identifier with
 * require-instance (true by default) must name existing data. (RESTCONF writes check leafrefs only
 * when the request asks, with checkForReferences.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { ModuleRepository } from '../yang/repository';
import { compileSchema } from '../yang/compiler';
import { printTree } from '../yang/tree-printer';
import { formatDiagnostic } from '../yang/statement';
import type { SchemaContext } from '../yang/schema';
import { decodeJson } from '../data/json-decode';
import { decodeXml } from '../data/xml-decode';
import { validateTree } from '../data/validate';
import { DataError } from '../data/errors';
import type { DataRoot } from '../data/tree';

const COMMON_OPTIONS = `  -p, --path DIR        search DIR (recursively) for imported modules; repeatable
  -F, --features M:F,.. enable only features F of module M ('M:*' all, 'M:' none); repeatable
  -i, --make-implemented  make modules imported by the given ones implemented (as yanglint -i)
  -D, --disable-searchdir  accepted for yanglint compatibility: the current directory is never
                        searched unless given with -p
  -h, --help            show this help`;

const HELP: Record<string, string> = {
  tree: `usage: rosetta yang tree [-p DIR]... [-F M:F,...] [-i] [-P PATH] MODULE...

Prints the RFC 8340 tree diagram of each MODULE (a .yang file or a module name).
  -P, --schema-node PATH  print only the subtree at PATH (e.g. /ietf-interfaces:interfaces)
${COMMON_OPTIONS}`,
  check: `usage: rosetta yang check [-p DIR]... [-F M:F,...] [-i] MODULE...

Compiles the MODULEs with their imports and prints every fault with file, line and reason.
Exit 0 when they compile, 1 when any has an error.
${COMMON_OPTIONS}`,
  validate: `usage: rosetta yang validate [-p DIR]... [-F M:F,...] [-i] [-t config|data] MODULE... DATA.json|DATA.xml

Validates a data document against the MODULEs. Exit 0 when it is valid; otherwise prints the first
faults with their instance paths and reasons and exits 1. As in yanglint, leafrefs and
instance-identifiers (unless require-instance false) must point at data in the document.
  -t, --type config|data  config: configuration only, state data rejected (default: data, a whole
                          datastore with state)
      --leafrefs          accepted for earlier command lines: leafrefs are always checked
${COMMON_OPTIONS}`,
};

const OPTIONS = {
  path: { type: 'string', short: 'p', multiple: true },
  features: { type: 'string', short: 'F', multiple: true },
  'make-implemented': { type: 'boolean', short: 'i' },
  'schema-node': { type: 'string', short: 'P' },
  type: { type: 'string', short: 't' },
  leafrefs: { type: 'boolean' },
  'disable-searchdir': { type: 'boolean', short: 'D' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

export async function yangCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || !(sub in HELP)) {
    console.error(`rosetta yang: expected one of ${Object.keys(HELP).join(', ')}${sub ? `, not '${sub}'` : ''}`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({ args: [...rest], options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      console.log(HELP[sub]);
      return 0;
    }
    if (sub !== 'tree' && values['schema-node'] !== undefined) throw new UsageError('-P is an option of yang tree only');
    if (sub !== 'validate' && (values.type !== undefined || values.leafrefs))
      throw new UsageError('-t and --leafrefs are options of yang validate only');
    const modules = sub === 'validate' ? positionals.slice(0, -1) : positionals;
    if (modules.length === 0)
      throw new UsageError(sub === 'validate' ? 'give at least one MODULE and a DATA file' : 'give at least one MODULE');
    const ctx = compile(modules, values.path ?? [], values.features ?? [], values['make-implemented'] ?? false);
    const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
    for (const d of ctx.diagnostics) if (d.severity === 'error' || sub === 'check') console.error(formatDiagnostic(d));
    if (errors.length > 0) return 1;
    switch (sub) {
      case 'tree':
        process.stdout.write(printTree(ctx, moduleNames(ctx, modules), { path: values['schema-node'] }));
        return 0;
      case 'check':
        return 0;
      default:
        return validateFile(ctx, positionals[positionals.length - 1]!, values.type ?? 'data');
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`rosetta yang ${sub}: ${(e as Error).message}\n\n${HELP[sub]}`);
      return 2;
    }
    throw e;
  }
}

/** `-F mod:feat1,feat2` (repeatable) into the compiler's feature map. */
export function parseFeatures(specs: readonly string[]): Map<string, readonly string[] | '*'> {
  const features = new Map<string, readonly string[] | '*'>();
  for (const spec of specs) {
    for (const item of spec.split(/\s+/).filter(Boolean)) {
      const colon = item.indexOf(':');
      if (colon <= 0) throw new UsageError(`-F ${item}: expected MODULE:FEATURE[,FEATURE...]`);
      const mod = item.slice(0, colon);
      const list = item
        .slice(colon + 1)
        .split(',')
        .filter(Boolean);
      features.set(mod, list.includes('*') ? '*' : list);
    }
  }
  return features;
}

function compile(
  modules: readonly string[],
  dirs: readonly string[],
  featureSpecs: readonly string[],
  implementImports: boolean,
): SchemaContext {
  const repo = new ModuleRepository(dirs);
  for (const m of modules) {
    if (isFile(m)) repo.addSearchDir(path.dirname(m));
    else if (m.endsWith('.yang')) throw new UsageError(`no such file: ${m}`);
  }
  const features = featureSpecs.length > 0 ? parseFeatures(featureSpecs) : undefined;
  return compileSchema(repo, { modules, features, implementImports });
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The module names the arguments stand for (a file argument names the module in it). */
function moduleNames(ctx: SchemaContext, args: readonly string[]): string[] {
  const byFile = new Map<string, string>();
  for (const m of ctx.modules.values()) byFile.set(path.resolve(m.file), m.name);
  return args.map((a) => byFile.get(path.resolve(a)) ?? a);
}

function validateFile(ctx: SchemaContext, file: string, type: string): number {
  if (type !== 'config' && type !== 'data') throw new UsageError(`-t ${type}: expected config or data`);
  const ext = path.extname(file).toLowerCase();
  if (ext !== '.json' && ext !== '.xml') throw new UsageError(`${file}: the data file must end in .json or .xml`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    console.error(`${file}: ${(e as Error).message}`);
    return 1;
  }
  let root: DataRoot;
  try {
    // the tree is checked and dropped with the text: XML values may stay views into it
    const options = { allowState: type === 'data', views: true };
    root = (ext === '.json' ? decodeJson(text, ctx, options) : decodeXml(text, ctx, options)).root;
  } catch (e) {
    if (!(e instanceof DataError)) throw e;
    for (const f of e.faults) console.error(`${file}: ${f.tag}: ${f.path}: ${f.message}`);
    return 1;
  }
  const faults = validateTree(root, ctx, { type, checkLeafrefs: true, maxErrors: 10 });
  for (const f of faults) console.error(`${file}: ${f.tag}: ${f.path}: ${f.message}`);
  return faults.length === 0 ? 0 : 1;
}
