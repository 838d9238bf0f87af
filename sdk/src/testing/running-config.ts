/**
 * The simulator's running configuration: a tree of configuration lines that config-mode commands edit
 * (enter a block, add a line, `no ...` a line or block) and `show running-config` renders the way FRR
 * does. Table-driven: which commands open blocks, and which settings replace their previous value, come
 * from the device definition.
 */

/** A config command that opens a block and a sub-mode (`interface eth0` -> `config-if`). */
export interface ModeRule {
  readonly enter: RegExp;
  /** The mode name shown in the prompt: `frr-peer(config-if)# `. */
  readonly mode: string;
  /** Modes in which the command opens the block (default: `config`). */
  readonly from?: readonly string[];
  /** The line that closes the block in `show running-config` (default `exit`). */
  readonly closer?: string;
}

/** One configuration line, with the lines of its block when it opens one. */
export interface ConfigLine {
  readonly text: string;
  readonly rule: ModeRule | undefined;
  readonly children: ConfigLine[];
}

/** FRR's sub-modes, enough for interfaces, static routes and BGP. */
export const FRR_MODES: readonly ModeRule[] = [
  { enter: /^interface \S+( vrf \S+)?$/, mode: 'config-if' },
  { enter: /^router bgp \d+( vrf \S+)?$/, mode: 'config-router' },
  { enter: /^router (ospf|ospf6|rip|ripng|isis \S+)$/, mode: 'config-router' },
  { enter: /^address-family (ipv4|ipv6|l2vpn)( \S+)?$/, mode: 'config-router-af', from: ['config-router'], closer: 'exit-address-family' },
  { enter: /^route-map \S+ (permit|deny) \d+$/, mode: 'config-route-map' },
  { enter: /^vrf \S+$/, mode: 'config-vrf', closer: 'exit-vrf' },
];

/** Settings that hold one value: setting them again replaces the old line. */
export const FRR_SINGLE_VALUE: readonly RegExp[] = [
  /^description /,
  /^bgp router-id /,
  /^hostname /,
  /^mtu /,
  /^ip address \S+ label /,
  /^link-detect$/,
];

/** Builds the tree from indented configuration text (the body of a running config). */
export function parseConfig(text: readonly string[], modes: readonly ModeRule[]): ConfigLine[] {
  const roots: ConfigLine[] = [];
  const stack: Array<{ indent: number; line: ConfigLine }> = [];
  for (const raw of text) {
    const body = raw.trim();
    if (body === '' || body === '!' || /^(exit(-[\w-]+)?|end)$/.test(body)) continue;
    const indent = raw.length - raw.trimStart().length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const parent = stack[stack.length - 1]?.line;
    const line: ConfigLine = { text: body, rule: modes.find((m) => m.enter.test(body)), children: [] };
    (parent ? parent.children : roots).push(line);
    stack.push({ indent, line });
  }
  return roots;
}

/** Renders a running config as FRR prints it. */
export function renderRunningConfig(preamble: readonly string[], lines: readonly ConfigLine[]): string {
  const out = ['Building configuration...', '', 'Current configuration:', '!', ...preamble];
  if (preamble.length > 0) out.push('!');
  let plainRun = false;
  for (const line of lines) {
    if (line.rule || line.children.length > 0) {
      if (plainRun) out.push('!');
      plainRun = false;
      renderBlock(line, 0, out);
      out.push('!');
    } else {
      if (!plainRun && out[out.length - 1] !== '!') out.push('!');
      out.push(line.text);
      plainRun = true;
    }
  }
  if (plainRun) out.push('!');
  out.push('end');
  return out.join('\n');
}

function renderBlock(line: ConfigLine, depth: number, out: string[]): void {
  const pad = ' '.repeat(depth);
  out.push(pad + line.text);
  for (const child of line.children) {
    if (child.rule || child.children.length > 0) renderBlock(child, depth + 1, out);
    else out.push(`${pad} ${child.text}`);
  }
  if (line.rule) out.push(pad + (line.rule.closer ?? 'exit'));
}

/** Adds a line to a block (or the top level), replacing the previous value of a single-value setting. */
export function addLine(container: ConfigLine[], text: string, singleValue: readonly RegExp[], rule?: ModeRule): ConfigLine {
  const existing = container.find((l) => l.text === text);
  if (existing) return existing;
  const single = singleValue.find((re) => re.test(text));
  if (single) {
    const i = container.findIndex((l) => single.test(l.text));
    if (i >= 0) container.splice(i, 1);
  }
  const line: ConfigLine = { text, rule, children: [] };
  container.push(line);
  return line;
}

/** `no <text>`: removes the line or block equal to `text`, else the first whose text starts with it. */
export function removeLine(container: ConfigLine[], text: string): boolean {
  let i = container.findIndex((l) => l.text === text);
  if (i < 0) i = container.findIndex((l) => l.text.startsWith(`${text} `));
  if (i < 0) return false;
  container.splice(i, 1);
  return true;
}
