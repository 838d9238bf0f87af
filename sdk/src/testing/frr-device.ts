/**
 * A ready-made simulator definition that behaves like FRR 8.x's vtysh as checked against the real peer
 * (/work/shared/peers/REPORT.md): its banner, prompts, running-config preamble, `show version`,
 * `show interface json` computed from the configured interfaces, and `show vrf`. Tests and benchmarks start many of these.
 */
import type { ConfigLine } from './running-config';
import type { DeviceDefinition, DeviceView } from './simulator';

export interface FrrDeviceOptions {
  readonly hostname?: string;
  readonly version?: string;
  readonly username?: string;
  readonly password?: string;
  /** Starting configuration body (indented lines as in a running config). */
  readonly config?: readonly string[];
}

/** A definition for an FRR-like device. */
export function frrDevice(options: FrrDeviceOptions = {}): DeviceDefinition {
  const hostname = options.hostname ?? 'frr-peer';
  const version = options.version ?? '8.4.4';
  return {
    hostname,
    banner: `\r\nHello, this is FRRouting (version ${version}).\r\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\r\n\r\n`,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    preamble: [
      `frr version ${version}`,
      'frr defaults traditional',
      `hostname ${hostname}`,
      'no ip forwarding',
      'no ipv6 forwarding',
      'service integrated-vtysh-config',
    ],
    config: options.config ?? [],
    commands: {
      'show version': `FRRouting ${version} (${hostname}) on Linux(6.1.0-simulated).\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\nconfigured with:\n    '--simulated'`,
      'show interface json': (device) => interfacesJson(device),
      // FRR 8.4 prints configured VRFs without a kernel device as inactive, nothing when there are none
      'show vrf': (device) =>
        device.config
          .map((l) => /^vrf (\S+)$/.exec(l.text)?.[1])
          .filter((n) => n !== undefined)
          .map((n) => `vrf ${n} inactive (configured)`)
          .join('\n'),
    },
  };
}

/** FRR's `show interface json` for the configured interfaces plus `lo` (state as a fresh namespace has it). */
function interfacesJson(device: DeviceView): string {
  const out: Record<string, Record<string, unknown>> = {};
  // name -> its block, in one pass: a 10,000-interface device must not cost a search per interface
  const blocks = new Map<string, ConfigLine | undefined>([['lo', undefined]]);
  for (const line of device.config) {
    const m = /^interface (\S+)$/.exec(line.text);
    if (m && blocks.get(m[1]!) === undefined) blocks.set(m[1]!, line);
  }
  for (const name of [...blocks.keys()].sort()) {
    const block = blocks.get(name);
    const shutdown = block?.children.some((c) => c.text === 'shutdown') ?? false;
    const description = block?.children.find((c) => c.text.startsWith('description '))?.text.slice('description '.length);
    const facts: Record<string, unknown> = { administrativeStatus: shutdown ? 'down' : 'up', vrfName: 'default' };
    if (description !== undefined) facts['description'] = description;
    if (name === 'lo') Object.assign(facts, { operationalStatus: shutdown ? 'down' : 'up', mtu: 65536, type: 'Loopback' });
    else facts['pseudoInterface'] = true;
    out[name] = facts;
  }
  return JSON.stringify(out, null, 2);
}
