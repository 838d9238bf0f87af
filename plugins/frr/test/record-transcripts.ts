/**
 * Records the transcripts the harness tests read (../../transcripts/*.log) from a real FRR over SSH, the
 * way a unit's session sees it: `node plugins/frr/dist/test/record-transcripts.js` with the peer running
 * (test/peers/frr-device.sh start). Each scenario configures the device, records the show commands the
 * units send, and removes what it configured, so the device ends as it started.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectSshCli, type SshCliSession } from '@rosetta/sdk';
import { PEER } from './peer';

const OUT = path.resolve(__dirname, '../../transcripts');

const READS = [
  'show running-config',
  'show interface json',
  'show vrf',
  'show bgp vrf all summary json',
  'show bgp vrf all neighbors json',
];

/** The configuration of the `full` scenario, as a client would send it through the units. */
export const FULL_CONFIG = [
  'interface lo',
  ' description loopback of R1',
  ' ip address 10.0.0.1/32',
  ' ip address 10.0.0.2/32',
  'exit',
  'interface eth7',
  ' description uplink to core',
  ' ip address 192.0.2.1/24',
  ' shutdown',
  'exit',
  'ip route 198.51.100.0/24 127.0.0.2',
  'ip route 198.51.100.0/24 127.0.0.3 20',
  'ip route 198.51.100.0/24 127.0.0.2 30',
  'ip route 192.0.2.128/25 Null0',
  'vrf red',
  ' ip route 203.0.113.0/24 127.0.0.9 5',
  'exit-vrf',
  'vrf blue',
  'exit-vrf',
  'router bgp 65001',
  ' bgp router-id 10.0.0.1',
  ' neighbor 127.0.0.2 remote-as 65002',
  ' neighbor 127.0.0.2 description peer two',
  ' neighbor 127.0.0.3 remote-as internal',
  ' neighbor 127.0.0.3 shutdown',
  'exit',
  'router bgp 65001 vrf red',
  ' bgp router-id 10.1.0.1',
  ' neighbor 127.0.0.5 remote-as 65005',
  'exit',
  'router bgp 65001 vrf green',
  'exit',
];

const FULL_TEARDOWN = [
  'no router bgp 65001 vrf red',
  'no router bgp 65001 vrf green',
  'no router bgp 65001',
  'no vrf red',
  'no vrf blue',
  'no ip route 198.51.100.0/24 127.0.0.2',
  'no ip route 198.51.100.0/24 127.0.0.3 20',
  'no ip route 198.51.100.0/24 127.0.0.2 30',
  'no ip route 192.0.2.128/25 Null0',
  'interface lo',
  ' no description',
  ' no ip address 10.0.0.1/32',
  ' no ip address 10.0.0.2/32',
  'exit',
  'interface eth7',
  ' no description',
  ' no ip address 192.0.2.1/24',
  ' no shutdown',
  'exit',
];

/** Commands FRR refuses, each with the message the units' error patterns must catch. */
const FAILING = [
  'router bgp 65001',
  'exit',
  'router bgp 65002',
  'no router bgp 65009',
  'router bgp 65001',
  ' neighbor 127.0.0.9 description x',
  ' bgp router-id 1.1.1.300',
  'exit',
  'ip route 1.2.3.0/24',
  'no ip route 10.99.0.0/16 127.0.0.2',
  'no interface lo',
  'no router bgp 65001',
];

async function record(session: SshCliSession, commands: readonly string[], log: string[]): Promise<void> {
  for (const command of commands) {
    const prompt = session.prompt;
    const output = await session.exec(command.trim());
    log.push(`${prompt}${command.trim()}`, ...(output === '' ? [] : [output.replace(/\n$/, '')]));
  }
}

async function scenario(name: string, setup: readonly string[], reads: readonly string[], teardown: readonly string[]): Promise<void> {
  const session = await connectSshCli(PEER);
  const log: string[] = [];
  try {
    if (setup.length > 0) {
      await session.exec('configure terminal');
      for (const c of setup) await session.exec(c.trim());
      await session.exec('end');
    }
    await record(session, reads, log);
  } finally {
    if (teardown.length > 0) {
      await session.exec('configure terminal');
      for (const c of teardown) await session.exec(c.trim());
      await session.exec('end');
    }
    session.close();
  }
  fs.writeFileSync(path.join(OUT, `frr-8.4.4-${name}.log`), `${log.join('\n')}\n${PEER_PROMPT}\n`);
  console.log(`recorded ${name}: ${reads.length} commands`);
}

const PEER_PROMPT = 'frr-peer#';

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  await scenario('empty', [], [...READS, 'show version'], []);
  await scenario('full', FULL_CONFIG, [...READS, 'show bgp vrf green json'], FULL_TEARDOWN);
  // the failing commands are recorded in configuration mode, so the log holds config prompts
  const session = await connectSshCli(PEER);
  const log: string[] = [];
  try {
    await record(session, ['configure terminal', ...FAILING, 'end'], log);
  } finally {
    session.close();
  }
  fs.writeFileSync(path.join(OUT, 'frr-8.4.4-errors.log'), `${log.join('\n')}\n${PEER_PROMPT}\n`);
  console.log('recorded errors');
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
