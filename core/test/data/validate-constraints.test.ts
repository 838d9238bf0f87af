/**
 * Validation rules that the corpus models used in validate.test.ts do not exercise (unique,
 * min/max-elements, instance-identifier, must error-app-tag, when lifting mandatory), on a small
 * hand-built model so each rule is tested on its own.
 */
import test from 'ava';
import { validateTree, type ValidateOptions } from '../../src/data/validate';
import type { DataRoot } from '../../src/data/tree';
import type { YangType } from '../../src/yang/schema';
import {
  container,
  dContainer,
  dLeaf,
  dLeafList,
  dList,
  dRoot,
  fixtureContext,
  fixtureModule,
  leaf,
  leafList,
  list,
  uint32Type,
  xp,
  choice,
  caseOf,
} from '../yang/xpath-fixture';

const m = fixtureModule('acme-net', 'acme');
const aug = fixtureModule('acme-ext', 'ext', { acme: 'acme-net' });
const iidType: YangType = { builtin: 'instance-identifier', name: 'instance-identifier', patterns: [], requireInstance: true };

const sName = leaf('name', m);
const sIp = leaf('ip', m);
const sPort = leaf('port', m, uint32Type);
const sMode = leaf('mode', m);
const sSecret = leaf('secret', m, undefined, { mandatory: true, when: [xp("../mode = 'secure'", m)] });
const sWeight = leaf('weight', m, uint32Type, {
  musts: [{ xpath: xp('. <= 100', m), errorMessage: 'weight is a percentage', errorAppTag: 'weight-range' }],
});
const sTags = leafList('tag', m, undefined, { max: 2 });
const sServer = list('server', m, ['name'], [sName, sIp, sPort, sMode, sSecret, sWeight, sTags], {
  min: 1,
  max: 3,
  unique: [['ip', 'port']],
});
const sTarget = leaf('target', m, iidType);
const sLocal = leaf('local', m);
const sRemote = leaf('remote', m);
const sTransport = choice('transport', m, [caseOf('local', m, [sLocal]), caseOf('remote', m, [sRemote])], { mandatory: true });
const sExtra = leaf('extra', aug, undefined, { placedWhen: [xp('acme:local', aug)] });
const sTop = container('servers', m, [sServer, sTarget, sTransport, sExtra]);
const ctx = fixtureContext([m, aug], [sTop]);

const server = (name: string, ip: string, port: number, ...more: ReturnType<typeof dLeaf | typeof dLeafList>[]) => [
  dLeaf(sName, name),
  dLeaf(sIp, ip),
  dLeaf(sPort, port),
  ...more,
];

function faults(root: DataRoot, options: ValidateOptions = { type: 'config' }): string[] {
  return validateTree(root, ctx, options).map((f) => `${f.tag} ${f.path}${f.appTag ? ` [${f.appTag}]` : ''}: ${f.message}`);
}

test('a valid document has no faults', (t) => {
  t.deepEqual(
    faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 53), server('b', '10.0.0.1', 54)), dLeaf(sLocal, 'x')))),
    [],
  );
});

test('unique: two entries with the same ip and port', (t) => {
  t.deepEqual(
    faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 53), server('b', '10.0.0.1', 53)), dLeaf(sLocal, 'x')))),
    [
      "operation-failed /acme-net:servers/server[name='b'] [data-not-unique]: unique constraint \"ip port\" violated: same values as /acme-net:servers/server[name='a']",
    ],
  );
  // An entry lacking one of the unique leaves (and no default) is not compared.
  t.deepEqual(
    faults(
      dRoot(
        dContainer(
          sTop,
          dList(sServer, [dLeaf(sName, 'a'), dLeaf(sIp, '10.0.0.1')], [dLeaf(sName, 'b'), dLeaf(sIp, '10.0.0.1')]),
          dLeaf(sLocal, 'x'),
        ),
      ),
    ),
    [],
  );
});

test('min-elements and max-elements of lists and leaf-lists', (t) => {
  t.deepEqual(faults(dRoot(dContainer(sTop, dLeaf(sLocal, 'x')))), [
    'operation-failed /acme-net:servers/server [too-few-elements]: list "server" has no entries, fewer than min-elements 1',
  ]);
  const four = ['a', 'b', 'c', 'd'].map((n, i) => server(n, `10.0.0.${i}`, 1));
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, ...four), dLeaf(sLocal, 'x')))), [
    'operation-failed /acme-net:servers/server[name=\'d\'] [too-many-elements]: list "server" has 4 entries, more than max-elements 3',
  ]);
  t.deepEqual(
    faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1, dLeafList(sTags, 'x', 'y', 'z'))), dLeaf(sLocal, 'x')))),
    [
      "operation-failed /acme-net:servers/server[name='a']/tag[.='z'] [too-many-elements]: leaf-list \"tag\" has 3 values, more than max-elements 2",
    ],
  );
});

test("must with the model's error-message and error-app-tag", (t) => {
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1, dLeaf(sWeight, 150))), dLeaf(sLocal, 'x')))), [
    "operation-failed /acme-net:servers/server[name='a']/weight [weight-range]: weight is a percentage",
  ]);
});

test('a mandatory leaf whose when is false is not required; when true it is', (t) => {
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1, dLeaf(sMode, 'plain'))), dLeaf(sLocal, 'x')))), []);
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1, dLeaf(sMode, 'secure'))), dLeaf(sLocal, 'x')))), [
    'missing-element /acme-net:servers/server[name=\'a\']/secret: mandatory leaf "secret" is missing',
  ]);
  t.deepEqual(
    faults(
      dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1, dLeaf(sMode, 'plain'), dLeaf(sSecret, 's'))), dLeaf(sLocal, 'x'))),
    ),
    [
      'unknown-element /acme-net:servers/server[name=\'a\']/secret: when condition "../mode = \'secure\'" of "secret" is false, so the node must not exist',
    ],
  );
});

test('instance-identifier require-instance is always checked', (t) => {
  const doc = (target: string) =>
    dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1)), dLeaf(sTarget, target), dLeaf(sLocal, 'x')));
  t.deepEqual(faults(doc("/acme-net:servers/server[name='a']/port")), []);
  t.deepEqual(faults(doc("/acme-net:servers/server[name='b']/port")), [
    'data-missing /acme-net:servers/target [instance-required]: instance-identifier "/acme-net:servers/server[name=\'b\']/port" names no existing node',
  ]);
  t.regex(faults(doc('/nope:servers'))[0]!, /instance-identifier "\/nope:servers": prefix "nope" is not declared/);
  t.regex(faults(doc('servers['))[0]!, /is not a path/);
});

test('mandatory choice; augment-level when; a when that cannot be evaluated is reported with the reason', (t) => {
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1))))), [
    'data-missing /acme-net:servers [missing-choice]: mandatory choice "transport" has no data',
  ]);
  // extra's when comes from an augment: its context is the parent container, where `local` lives.
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1)), dLeaf(sLocal, 'l'), dLeaf(sExtra, 'e')))), []);
  t.deepEqual(faults(dRoot(dContainer(sTop, dList(sServer, server('a', '10.0.0.1', 1)), dLeaf(sRemote, 'r'), dLeaf(sExtra, 'e')))), [
    'unknown-element /acme-net:servers/acme-ext:extra: when condition "acme:local" of "extra" is false, so the node must not exist',
  ]);
  const broken = leaf('broken', m, undefined, { when: [xp('nofunc()', m)] });
  const bctx = fixtureContext([m], [container('b', m, [broken])]);
  t.deepEqual(
    validateTree(dRoot(dContainer(bctx.data[0] as typeof sTop, dLeaf(broken, 'x'))), bctx, { type: 'config' }).map((f) => f.message),
    ['cannot evaluate when of "broken": XPath "nofunc()": unknown function nofunc()'],
  );
});

test('state data is checked in data mode but refused in config mode', (t) => {
  const state = leaf('uptime', m, uint32Type, { config: false });
  const top = container('status', m, [state], { config: false });
  const sctx = fixtureContext([m], [top]);
  const root = dRoot(dContainer(top, dLeaf(state, 5)));
  t.deepEqual(validateTree(root, sctx, { type: 'data' }), []);
  t.deepEqual(
    validateTree(root, sctx, { type: 'config' }).map((f) => `${f.path} ${f.message}`),
    ['/acme-net:status state data node "status" is not allowed in configuration data'],
  );
});
