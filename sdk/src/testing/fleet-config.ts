/**
 * What a fleet's devices hold: the one YANG model every simulated NETCONF device of a fleet shares (a
 * router's system settings and interfaces with subinterfaces and IPv4 addresses), each device's initial
 * configuration in RFC 7951 JSON and in the XML the device serves, and the FRR-like running configuration
 * of a CLI device. A configuration is computed from the device's index whenever it is asked for, never
 * stored: hostnames, descriptions, VLANs and addresses differ by index, so a check of one device's data
 * tells devices apart, and thousands of idle devices cost nothing here.
 */

/** The fleet model's module name, its JSON prefix. */
export const FLEET_MODULE = 'rosetta-fleet-device';
export const FLEET_NAMESPACE = 'urn:rosetta:fleet-device';

/** The YANG module the fleet's NETCONF devices serve (get-schema) and hold their configuration in. */
export const FLEET_YANG = `module ${FLEET_MODULE} {
  yang-version 1.1;
  namespace "${FLEET_NAMESPACE}";
  prefix fd;
  organization "Rosetta";
  description "A router's system settings and interfaces, as the SDK's fleet simulator plays it.";
  revision 2026-11-27 { description "Initial revision."; }
  container system {
    leaf hostname { type string; }
    leaf location { type string; }
    leaf contact { type string; }
    container ntp {
      leaf enabled { type boolean; }
      leaf-list server { type string; ordered-by user; }
    }
  }
  container interfaces {
    list interface {
      key name;
      leaf name { type string; }
      leaf description { type string; }
      leaf enabled { type boolean; }
      leaf mtu { type uint16 { range "68..9216"; } }
      container subinterfaces {
        list subinterface {
          key index;
          leaf index { type uint32; }
          leaf description { type string; }
          leaf vlan-id { type uint16 { range "1..4094"; } }
          container ipv4 {
            list address {
              key ip;
              leaf ip { type string; }
              leaf prefix-length { type uint8 { range "0..32"; } }
            }
          }
        }
      }
    }
  }
}
`;

/** JSON lines of a configuration without interfaces, and of each interface (every one has the same shape). */
const SYSTEM_LINES = 18;
const INTERFACE_LINES = 36;
const MIN_INTERFACES = 1;

/** How many interfaces make about `lines` JSON lines (pretty-printed RFC 7951, two-space indent). */
export function fleetInterfaceCount(lines: number): number {
  return Math.max(MIN_INTERFACES, Math.round((lines - SYSTEM_LINES) / INTERFACE_LINES));
}

type Json = string | number | boolean | Json[] | { [member: string]: Json };

/** The initial configuration of NETCONF device `index` (1-based) as RFC 7951 JSON, about `lines` lines pretty-printed. */
export function fleetDeviceJson(index: number, lines: number): Record<string, Json> {
  const octet2 = (index >> 8) & 255;
  const octet3 = index & 255;
  const interfaces: Json[] = [];
  for (let i = 0; i < fleetInterfaceCount(lines); i++) {
    const subinterfaces: Json[] = [0, 1].map((sub) => ({
      index: sub,
      description: `device ${index} port ${i} unit ${sub}`,
      'vlan-id': 1 + ((index * 7 + i * 2 + sub) % 4094),
      ipv4: {
        address: [{ ip: `10.${octet2}.${octet3}.${1 + ((i * 2 + sub) % 254)}`, 'prefix-length': 24 + ((i + sub) % 8) }],
      },
    }));
    interfaces.push({
      name: `ge-0/0/${i}`,
      description: `uplink ${i} of device ${index}`,
      enabled: (index + i) % 5 !== 0,
      mtu: 1500 + ((index + i) % 8) * 500,
      subinterfaces: { subinterface: subinterfaces },
    });
  }
  return {
    [`${FLEET_MODULE}:system`]: {
      hostname: `nc-${String(index).padStart(5, '0')}`,
      location: `site ${1 + (index % 97)} rack ${1 + (index % 41)}`,
      contact: `noc-${index % 13}@example.net`,
      ntp: { enabled: true, server: [`192.0.2.${1 + (index % 250)}`, '198.51.100.1'] },
    },
    [`${FLEET_MODULE}:interfaces`]: { interface: interfaces },
  };
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Writes JSON members as XML elements the way the simulator renders stored nodes (no whitespace, no declaration). */
function membersXml(members: Record<string, Json>): string {
  let out = '';
  for (const [name, value] of Object.entries(members)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'object' && !Array.isArray(item)) out += `<${name}>${membersXml(item)}</${name}>`;
      else out += `<${name}>${escapeXml(String(item))}</${name}>`;
    }
  }
  return out;
}

/** The same configuration as XML elements in the model's namespace (no `<config>` wrapper). */
export function fleetDeviceXml(index: number, lines: number): string {
  return Object.entries(fleetDeviceJson(index, lines))
    .map(([qualified, value]) => {
      const name = qualified.slice(FLEET_MODULE.length + 1);
      return `<${name} xmlns="${FLEET_NAMESPACE}">${membersXml(value as Record<string, Json>)}</${name}>`;
    })
    .join('');
}

/** The starting running-configuration body of CLI device `index` (FRR-like, indented as in a running config). */
export function fleetCliConfig(index: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 4; i++) {
    lines.push(`interface eth${i}`, ` description link ${i} of cli device ${index}`);
    lines.push(` ip address 172.${16 + (index >> 12)}.${(index >> 4) & 255}.${((index & 15) << 4) + i + 1}/28`);
    if ((index + i) % 4 === 3) lines.push(' shutdown');
    lines.push('exit');
  }
  lines.push(`ip route 0.0.0.0/0 172.${16 + (index >> 12)}.${(index >> 4) & 255}.${((index & 15) << 4) + 14}`);
  return lines;
}
