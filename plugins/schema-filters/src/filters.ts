/**
 * The schema filters' settings (the `schemaFilters` object of the service configuration) and the
 * decision they make for one schema node: hidden on read, ignored on write, given the request's
 * `unhide`. Extensions are matched by the defining module's own prefix (as the module that defines
 * the extension declares it), the extension's name and, when the setting names one, its argument:
 * `rext:hidden debug` matches `rext:hidden debug` only, `rext:hidden` matches any argument.
 *
 * Choices, written down:
 * - A definition is hidden when it, or a choice or case enclosing it, carries a listed extension;
 *   hiding a node hides its subtree. List keys are never hidden (an entry without keys is no entry).
 * - `unhide=<ext>` brings back what that extension hid; `unhide=all` also brings back what
 *   `hideDeprecatedDefinitionsOnRead` hid.
 */
import type { ExtensionInstance, SchemaContext, SchemaNode } from '@rosetta/sdk';

/** An extension as settings and `unhide` name it. */
export interface ExtensionMatch {
  readonly prefix: string;
  readonly name: string;
  /** Undefined: any argument. */
  readonly argument: string | undefined;
}

/** The checked `schemaFilters` settings. */
export interface FilterSettings {
  readonly ignoredOnWrite: readonly ExtensionMatch[];
  readonly hiddenOnRead: readonly ExtensionMatch[];
  readonly ignoreUnsupportedOnWrite: boolean;
  readonly hideDeprecatedOnRead: boolean;
}

/** A settings fault naming its field (`schemaFilters.hiddenDataOnReadByExtensions[1]`). */
export class FilterSettingsError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'FilterSettingsError';
  }
}

const EXTENSION = /^([A-Za-z_][A-Za-z0-9_.-]*):([A-Za-z_][A-Za-z0-9_.-]*)(?: +([^\s,]+))?$/;

/** Parses `<prefix>:<name> [argument]`; undefined when it is not that. */
export function parseExtension(text: string): ExtensionMatch | undefined {
  const m = EXTENSION.exec(text.trim());
  return m ? { prefix: m[1]!, name: m[2]!, argument: m[3] } : undefined;
}

const FIELDS = [
  'ignoredDataOnWriteByExtensions',
  'hiddenDataOnReadByExtensions',
  'ignoreUnsupportedDefinitionsOnWrite',
  'hideDeprecatedDefinitionsOnRead',
];

/** Checks the `schemaFilters` object (undefined: no filtering). Throws FilterSettingsError naming the field. */
export function parseFilterSettings(raw: unknown): FilterSettings {
  const field = 'schemaFilters';
  if (raw === undefined) return { ignoredOnWrite: [], hiddenOnRead: [], ignoreUnsupportedOnWrite: false, hideDeprecatedOnRead: false };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new FilterSettingsError(field, 'must be an object');
  const obj = raw as Record<string, unknown>;
  for (const k of Object.keys(obj))
    if (!FIELDS.includes(k)) throw new FilterSettingsError(`${field}.${k}`, `unknown field; known: ${FIELDS.join(', ')}`);
  const list = (name: string): ExtensionMatch[] => {
    const v = obj[name];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))
      throw new FilterSettingsError(`${field}.${name}`, 'must be an array of strings');
    return v.map((s, i) => {
      const parsed = parseExtension(s);
      if (parsed === undefined)
        throw new FilterSettingsError(`${field}.${name}[${i}]`, `${JSON.stringify(s)} is not '<prefix>:<extension> [argument]'`);
      return parsed;
    });
  };
  const flag = (name: string): boolean => {
    const v = obj[name];
    if (v !== undefined && typeof v !== 'boolean') throw new FilterSettingsError(`${field}.${name}`, 'must be true or false');
    return v === true;
  };
  return {
    ignoredOnWrite: list('ignoredDataOnWriteByExtensions'),
    hiddenOnRead: list('hiddenDataOnReadByExtensions'),
    ignoreUnsupportedOnWrite: flag('ignoreUnsupportedDefinitionsOnWrite'),
    hideDeprecatedOnRead: flag('hideDeprecatedDefinitionsOnRead'),
  };
}

/** What `unhide` brings back: everything, or what the listed extensions hid. Bad items are ignored (the core has refused them). */
export type Unhide = 'all' | readonly ExtensionMatch[];

export function parseUnhide(value: string | undefined): Unhide {
  if (value === undefined) return [];
  if (value.trim() === 'all') return 'all';
  return value
    .split(',')
    .map(parseExtension)
    .filter((m): m is ExtensionMatch => m !== undefined);
}

/** Whether `setting` names the extension instance `ext` (prefix resolved through `schema`). */
function matches(setting: ExtensionMatch, ext: ExtensionInstance, schema: SchemaContext | undefined): boolean {
  if (setting.name !== ext.name) return false;
  if (setting.argument !== undefined && setting.argument !== ext.arg) return false;
  const ownPrefix = schema?.modules.get(ext.module)?.prefix ?? ext.prefix;
  return setting.prefix === ownPrefix;
}

/**
 * One request's decision about schema nodes, memoized per node (a request visits each schema node
 * at most a few times; nothing is kept past the request).
 */
export class NodeFilter {
  private readonly hiddenMemo = new Map<SchemaNode, boolean>();
  private readonly touchMemo = new Map<SchemaNode, boolean>();

  /**
   * `listed`: the extensions that hide (read) or ignore (write); `deprecated`: whether status
   * deprecated hides too. `unhide` removes from both as described at the top of this file.
   */
  constructor(
    private readonly listed: readonly ExtensionMatch[],
    private readonly deprecated: boolean,
    private readonly unhide: Unhide,
    private readonly schema: SchemaContext | undefined,
  ) {}

  /** Whether any node could be filtered at all (no: the caller skips the walk). */
  get active(): boolean {
    return this.unhide !== 'all' && (this.listed.length > 0 || this.deprecated);
  }

  /** Whether the definition of `node` (with the choices and cases enclosing it) is filtered out. */
  filtered(node: SchemaNode): boolean {
    let known = this.hiddenMemo.get(node);
    if (known === undefined) {
      known = this.decide(node);
      this.hiddenMemo.set(node, known);
    }
    return known;
  }

  /** Whether `node` or anything below it may be filtered (no: its data is passed through unwalked). */
  touches(node: SchemaNode): boolean {
    let known = this.touchMemo.get(node);
    if (known === undefined) {
      known = this.filtered(node) || node.children.some((c) => this.touches(c));
      this.touchMemo.set(node, known);
    }
    return known;
  }

  private decide(node: SchemaNode): boolean {
    if (!this.active) return false;
    if (node.parent?.kind === 'list' && node.kind === 'leaf' && node.parent.keys.includes(node)) return false;
    if (this.own(node)) return true;
    // A choice or case carries its extensions and status onto the data nodes under it.
    for (let p = node.parent; p !== undefined && (p.kind === 'choice' || p.kind === 'case'); p = p.parent) {
      if (this.own(p)) return true;
    }
    return false;
  }

  private own(node: SchemaNode): boolean {
    if (this.deprecated && node.status === 'deprecated') return true;
    const unhide = this.unhide as readonly ExtensionMatch[];
    return node.extensions.some(
      (ext) => this.listed.some((s) => matches(s, ext, this.schema)) && !unhide.some((u) => matches(u, ext, this.schema)),
    );
  }
}

/** How many definitions of a schema a filter removes: the topmost filtered nodes (their subtrees go with them). */
export function countFiltered(schema: SchemaContext, filter: NodeFilter): number {
  if (!filter.active) return 0;
  let count = 0;
  // Iterative: a deep schema must not exhaust the stack. Each schema node is visited once.
  const pending: SchemaNode[] = [...schema.data];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (filter.filtered(node) && node.kind !== 'choice' && node.kind !== 'case') {
      count++;
      continue;
    }
    if (filter.touches(node)) pending.push(...node.children);
  }
  return count;
}
