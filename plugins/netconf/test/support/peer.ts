/**
 * The real NETCONF peer for tests: yuma123 netconfd behind a private sshd, started by the project's
 * test/peers/netconf-device.sh on its own port and state folder so it never collides with another
 * suite's peer. `peerSkipReason` says (loudly) why the peer cannot run here.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

// compiled to plugins/netconf/dist/test/support: five levels up is the repository root
const SCRIPT = path.resolve(__dirname, '../../../../../test/peers/netconf-device.sh');

export const PEER = { host: '127.0.0.1', port: 10842, username: 'ncuser', password: 'ncpass', state: '/tmp/rosetta-netconf-plugin-test' };

/** Why netconfd tests cannot run here, or undefined when they can. */
export function peerSkipReason(): string | undefined {
  if (!existsSync('/usr/sbin/netconfd'))
    return 'netconfd is not installed (apt-get install netconfd netconfd-module-ietf-interfaces netconfd-module-ietf-system)';
  if (process.getuid?.() !== 0) return 'the netconfd peer script must run as root';
  if (!existsSync(SCRIPT)) return `missing ${SCRIPT}`;
  return undefined;
}

export function peer(command: 'start' | 'stop' | 'restart'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [SCRIPT, command],
      {
        env: { ...process.env, NETCONF_PEER_PORT: String(PEER.port), NETCONF_PEER_STATE: PEER.state, NETCONF_PEER_NO_INSTALL: '1' },
        timeout: 60_000,
      },
      (err, stdout, stderr) => (err ? reject(new Error(`netconf-device.sh ${command}: ${stderr || err.message}`)) : resolve(stdout)),
    );
  });
}
