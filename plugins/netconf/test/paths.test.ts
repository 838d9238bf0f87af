/**
 * Leaf-list entry paths (`[.='x']`, as the core writes a leaf-list entry target) in subtree filters and
 * edit-config, the path parser's edge cases, and the content=all merge of get-config with get.
 */
import test from 'ava';
import type { JsonObject } from '@rosetta/sdk';
import { cpuStopwatch } from '@rosetta/sdk/testing';
import { editConfigXml, mergeContent, parseDevicePath, subtreeFilter, traceText, XmlBuildError } from '../src';

const SYS = 'urn:ietf:params:xml:ns:yang:ietf-system';
const IF = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const NS = new Map([
  ['ietf-system', SYS],
  ['ietf-interfaces', IF],
]);
const NC = 'urn:ietf:params:xml:ns:netconf:base:1.0';

test('leaf-list entry path: parsed as the last segment value, quotes and escapes respected', (t) => {
  t.deepEqual(parseDevicePath("/ietf-system:system/dns-resolver/search[.='example.net']"), {
    ok: true,
    path: [{ member: 'ietf-system:system' }, { member: 'dns-resolver' }, { member: 'search', value: 'example.net' }],
  });
  t.deepEqual(parseDevicePath('/m:a/ll[.="x\\"]/y"]'), { ok: true, path: [{ member: 'm:a' }, { member: 'll', value: 'x"]/y' }] });
  // a key holding "]" and "/" does not confuse the predicate scan
  t.deepEqual(parseDevicePath("/m:a/l[k='a]/b']/c"), {
    ok: true,
    path: [{ member: 'm:a' }, { member: 'l', keys: { k: 'a]/b' } }, { member: 'c' }],
  });
  for (const bad of ["/m:a/ll[.='x']/b", "/m:a/ll[.='x'][.='y']", "/m:a/l[k='open", '/m:a[.=x]']) t.false(parseDevicePath(bad).ok, bad);
});

test('leaf-list entry in a subtree filter is a content-match node holding the value', (t) => {
  t.is(
    subtreeFilter("/ietf-system:system/dns-resolver/search[.='a<b']", undefined, NS),
    `<filter type="subtree"><system xmlns="${SYS}"><dns-resolver><search>a&lt;b</search></dns-resolver></system></filter>`,
  );
});

test('leaf-list entry in edit-config: delete names the value, merge sends it', (t) => {
  t.is(
    editConfigXml([{ operation: 'delete', path: "/ietf-system:system/dns-resolver/search[.='old.example']" }], NS),
    `<config xmlns="${NC}"><system xmlns="${SYS}"><dns-resolver><search xmlns:nc="${NC}" nc:operation="delete">old.example</search></dns-resolver></system></config>`,
  );
  t.is(
    editConfigXml(
      [
        {
          operation: 'merge',
          path: "/ietf-system:system/dns-resolver/search[.='new.example']",
          value: { 'ietf-system:search': ['new.example'] },
        },
      ],
      NS,
    ),
    `<config xmlns="${NC}"><system xmlns="${SYS}"><dns-resolver><search xmlns:nc="${NC}" nc:operation="merge">new.example</search></dns-resolver></system></config>`,
  );
  t.throws(() => editConfigXml([{ operation: 'delete', path: "/ietf-system:system/search[.='x']/y" }], NS), { instanceOf: XmlBuildError });
});

test('content=all: config from get-config and state from get merge; list entries meet on their keys', (t) => {
  const config: JsonObject = {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'eth0', description: 'up', enabled: true },
        { name: 'eth1', enabled: false },
      ],
    },
  };
  const state: JsonObject = {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'eth1', 'oper-status': 'down' },
        { name: 'eth2', 'oper-status': 'up' },
      ],
    },
    'ietf-interfaces:interfaces-state': { interface: [{ name: 'lo' }] },
  };
  t.deepEqual(mergeContent(config, state), {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'eth0', description: 'up', enabled: true },
        { name: 'eth1', enabled: false, 'oper-status': 'down' },
        { name: 'eth2', 'oper-status': 'up' },
      ],
    },
    'ietf-interfaces:interfaces-state': { interface: [{ name: 'lo' }] },
  });
  t.deepEqual(mergeContent({}, {}), {});
});

test('content=all merge of large lists costs linear time', (t) => {
  const n = 50_000;
  const config = { 'm:top': { entry: Array.from({ length: n }, (_, i) => ({ id: i, label: `e${i}` })) } };
  const state = { 'm:top': { entry: Array.from({ length: n }, (_, i) => ({ id: n - 1 - i, counter: String(i) })) } };
  const cpuMs = cpuStopwatch();
  const merged = mergeContent(config, state) as { 'm:top': { entry: Array<Record<string, unknown>> } };
  const ms = cpuMs();
  t.true(ms < 2000, `${ms.toFixed(0)} ms of CPU`);
  t.is(merged['m:top'].entry.length, n);
  t.deepEqual(merged['m:top'].entry[0], { id: 0, label: 'e0', counter: String(n - 1) });
});

test('the RPC trace masks secrets in device data and stays bounded', (t) => {
  const body =
    '<edit-config><config><system xmlns="urn:ietf:params:xml:ns:yang:ietf-system"><authentication><user><name>ops</name>' +
    '<password>$6$salt$hash</password></user></authentication><snmp><community>public-ish</community></snmp><key-chain><key>k1</key></key-chain></system></config></edit-config>';
  const traced = traceText(body);
  t.notRegex(traced, /\$6\$salt|public-ish|k1/);
  t.regex(traced, /<password>\*\*\*<\/password>/);
  t.regex(traced, /<name>ops<\/name>/);
  t.true(traceText('x'.repeat(10_000)).length < 2100);
});
