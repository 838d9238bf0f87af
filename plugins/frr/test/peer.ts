/**
 * The real FRR peer the live tests and the transcript recorder use: its login (test/peers/frr-device.sh
 * defaults), and starting it through the project's script without stopping a peer someone else started.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const PEER = { host: '127.0.0.1', port: 10022, username: 'frruser', password: 'frrpass', timeoutMs: 15_000 } as const;

const SCRIPT = path.resolve(__dirname, '../../../../test/peers/frr-device.sh');

/** Why the peer cannot run here, or undefined when it can. */
export function peerUnavailable(): string | undefined {
  if (!fs.existsSync('/usr/lib/frr/zebra') || !fs.existsSync('/usr/bin/vtysh')) return 'FRR is not installed (apt-get install frr openssh-server)';
  if (!fs.existsSync('/usr/sbin/sshd')) return 'openssh-server is not installed';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'the FRR peer needs root to start';
  if (!fs.existsSync(SCRIPT)) return `${SCRIPT} is missing`;
  return undefined;
}

/** Starts the peer if needed; answers whether it was already running (then leave it running). */
export function startPeer(): { wasRunning: boolean } {
  const wasRunning = spawnSync(SCRIPT, ['status'], { stdio: 'ignore', env: { ...process.env, FRR_PEER_NO_INSTALL: '1' } }).status === 0;
  if (!wasRunning) execFileSync(SCRIPT, ['start'], { stdio: 'pipe', env: { ...process.env, FRR_PEER_NO_INSTALL: '1' } });
  return { wasRunning };
}

export function stopPeer(): void {
  execFileSync(SCRIPT, ['stop'], { stdio: 'pipe' });
}

/** The running configuration, read on the device itself (vtysh as root), not through the units. */
export function deviceRunningConfig(): string {
  return execFileSync('vtysh', ['-c', 'show running-config'], { encoding: 'utf8' });
}

/** Configuration lines applied on the device itself (`vtysh -f`, which goes on past a failing line). */
export function deviceConfigure(lines: readonly string[]): void {
  const file = path.join(os.tmpdir(), `frr-unit-config-${process.pid}.conf`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  try {
    spawnSync('vtysh', ['-f', file], { stdio: 'ignore' });
  } finally {
    fs.rmSync(file, { force: true });
  }
}
