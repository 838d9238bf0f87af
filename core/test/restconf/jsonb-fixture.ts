/**
 * The entries jsonb-filter is tested on (query-jsonb.test.ts in the instance, database/large-lists.test.ts
 * in PostgreSQL against the instance): interfaces with every value kind the filters compare, and
 * rc-extra pairs with a union leaf (empty, boolean, string) and signed numbers.
 */
export const JSONB_INTERFACES = [
  {
    name: 'eth0',
    type: 'iana-if-type:ethernetCsmacd',
    enabled: true,
    description: 'Uplink to core',
    'ietf-ip:ipv4': {
      mtu: 1500,
      address: [
        { ip: '10.0.0.1', 'prefix-length': 24 },
        { ip: '10.0.1.1', 'prefix-length': 16 },
      ],
    },
  },
  { name: 'eth1', type: 'iana-if-type:ethernetCsmacd', enabled: false, 'ietf-ip:ipv4': { mtu: 9000 } },
  { name: 'lo0', type: 'iana-if-type:softwareLoopback', description: 'loopback' },
  { name: 'eth2', type: 'iana-if-type:ethernetCsmacd', description: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' },
];

export const JSONB_PAIRS = [
  { a: 'x', b: 1, u: [null] },
  { a: 'y', b: -2, u: true },
  { a: 'z', b: 3, u: 'text' },
];
