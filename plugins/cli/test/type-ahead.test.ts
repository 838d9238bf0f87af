/**
 * Commands typed ahead, against the SDK's device simulator over real SSH (it reads typed-ahead input as
 * vtysh does): the shell splits one write's answers at each prompt followed by the next command's echo,
 * exactly as one-by-one sends would have answered, whatever the output looks like; a command that hangs
 * fails itself and the ones after it. Through the plugin: a read of a unit that allows type-ahead sends
 * the show commands its previous read asked for in one write, and stays right when that set changes; a
 * unit that does not allow it is read one command at a time.
 */
import test from 'ava';
import { defineTranslationUnit, type ServingUnit } from '@rosetta/sdk';
import { frrDevice, startSimulator, type DeviceDefinition, type SimulatedDevice } from '@rosetta/sdk/testing';
import { CliShell, CliTimeoutError } from '../src/index';
import { cliSettings, harness, type Harness } from './fixture';

const creds = { username: 'frruser', password: 'frrpass' };
const BIG = Array.from({ length: 5000 }, (_, i) => `line ${i} of a long answer that arrives in many SSH packets`).join('\n');
/** Output that merely resembles a prompt or the next command's echo. */
const TRICKY = ['show vrf', 'frr-peer#', 'frr-peer# ', '  frr-peer# show vrf', 'frr-peer# show vrf and more', 'x frr-peer# show vrf'].join(
  '\n',
);

let items = ['a', 'b'];

async function sim(extra: Partial<DeviceDefinition> = {}): Promise<SimulatedDevice> {
  const base = frrDevice(creds);
  return startSimulator({
    ...base,
    commands: {
      ...base.commands,
      'show big': BIG,
      'show tricky': TRICKY,
      'show items': () => items.join('\n'),
      'show item a': 'A',
      'show item b': 'B',
      'show item c': 'C',
    },
    ...extra,
  });
}

function open(device: SimulatedDevice): Promise<CliShell> {
  return CliShell.open({ host: device.host, port: device.port, ...creds, connectTimeoutMs: 10_000 });
}

let h: Harness;
test.before(async () => {
  h = await harness();
});

test('typed-ahead answers are split as one-by-one sends answer, however the output looks', async (t) => {
  const device = await sim();
  const shell = await open(device);
  try {
    // the tricky output comes right before the command whose echo it resembles
    const commands = ['show version', 'show vrf', 'show bogus', 'show tricky', 'show vrf', 'show big', 'show version'];
    const one: string[] = [];
    for (const c of commands) one.push((await shell.send(c, 10_000)).output);
    const typed = await Promise.all(shell.sendAll(commands, 10_000));
    t.deepEqual(
      typed.map((r) => r.output),
      one,
    );
    t.is(typed[2]!.output.trim(), '% Unknown command: show bogus');
    t.is(typed[3]!.output, `${TRICKY}\n`);
    t.is(typed[5]!.output.length, BIG.length + 1);
    t.is(shell.current?.text, 'frr-peer# ', 'the last prompt is the mode the device is in');
    t.deepEqual(device.commandLog.slice(commands.length), commands);
  } finally {
    shell.close();
    await device.close();
  }
});

test('a typed-ahead command that hangs fails with the ones after it; the shell closes', async (t) => {
  const device = await sim({ hangOn: /^show vrf$/ });
  const shell = await open(device);
  try {
    const [first, hung, after] = shell.sendAll(['show version', 'show vrf', 'show version'], 300);
    t.regex((await first!).output, /FRRouting 8\.4\.4/, 'the answer before the hang arrives');
    const e = await t.throwsAsync(hung!);
    t.true(e instanceof CliTimeoutError);
    t.true(
      await after!.then(
        () => false,
        (x: unknown) => x instanceof CliTimeoutError,
      ),
    );
    t.false(shell.isOpen);
  } finally {
    shell.close();
    await device.close();
  }
});

/** A unit whose read asks for `show items`, then `show item X` for each item. */
function itemsUnit(typeAhead: boolean): ServingUnit {
  const definition = defineTranslationUnit({
    typeAhead,
    paths: {
      '/t:items/item': {
        keys: ['name'],
        list: async ({ session }) =>
          (await session.exec('show items'))
            .split('\n')
            .filter((n) => n !== '')
            .map((name) => ({ name })),
        readConfig: async ({ session, key }) => ({ name: key['name']!, value: (await session.exec(`show item ${key['name']}`)).trim() }),
      },
    },
  });
  return { plugin: 'items', version: '1.0.0', deviceType: 'frr', versions: '*', yangDir: undefined, definition };
}

/** What CliShell.sendAll is asked to type ahead while `work` runs. */
async function typedAhead<T>(work: () => Promise<T>): Promise<{ result: T; batches: string[][] }> {
  const original = CliShell.prototype.sendAll;
  const batches: string[][] = [];
  CliShell.prototype.sendAll = function (this: CliShell, lines, timeoutMs) {
    batches.push([...lines]);
    return original.call(this, lines, timeoutMs);
  };
  try {
    return { result: await work(), batches };
  } finally {
    CliShell.prototype.sendAll = original;
  }
}

test.serial('a read types ahead what the previous read of the same target asked for, and follows changes', async (t) => {
  items = ['a', 'b'];
  const device = await sim();
  const node = await h.connect('TA1', cliSettings(device.port), [itemsUnit(true)]);
  const read = () => typedAhead(() => h.read(node, '/', 'config'));
  const expect = (...names: string[]) => ({ 't:items': { item: names.map((n) => ({ name: n, value: n.toUpperCase() })) } });
  try {
    const first = await read();
    t.deepEqual(first.result, expect('a', 'b'));
    t.deepEqual(first.batches, [], 'nothing learned yet: one command at a time');
    const second = await read();
    t.deepEqual(second.result, expect('a', 'b'));
    t.deepEqual(second.batches, [['show items', 'show item a', 'show item b']]);
    items = ['b', 'c'];
    const changed = await read();
    t.deepEqual(changed.result, expect('b', 'c'), 'a command no longer needed is answered and dropped; a new one is sent');
    t.deepEqual(changed.batches, [['show items', 'show item a', 'show item b']]);
    const next = await read();
    t.deepEqual(next.result, expect('b', 'c'));
    t.deepEqual(next.batches, [['show items', 'show item b', 'show item c']]);
    const other = await read().then(() => typedAhead(() => h.read(node, "/t:items/item[name='b']", 'config')));
    t.deepEqual(other.batches, [], 'another target has a plan of its own');
    t.deepEqual(device.commandLog.filter((c) => c === 'show items').length, 6, 'every read asked the device');
  } finally {
    await node.connection.close();
    await device.close();
  }
});

test.serial('a unit that does not allow type-ahead is read one command at a time', async (t) => {
  items = ['a'];
  const device = await sim();
  const node = await h.connect('TA2', cliSettings(device.port), [itemsUnit(false)]);
  try {
    for (let i = 0; i < 2; i++) {
      const { batches } = await typedAhead(() => h.read(node, '/', 'config'));
      t.deepEqual(batches, []);
    }
  } finally {
    await node.connection.close();
    await device.close();
  }
});
