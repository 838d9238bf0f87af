/**
 * The dry run of a write is the write's own RPC list: `editRpcs` for each kind of device (candidate;
 * writable running with and without rollback-on-error; neither), `writeEdits` sending exactly that
 * list to a recording session, and `rosetta-netconf:dry-run-edit-config` refusing malformed input with
 * a 400 naming the bad member, sending nothing.
 */
import test from 'ava';
import { CAP_CANDIDATE, CAP_WRITABLE_RUNNING, parseXml } from '@rosetta/sdk';
import { dryRunEdit, DryRunInputError, editRpcs, NetconfRpcError, writeEdits, type ConfigEdit, type OperationSession } from '../src';

const SYS = 'urn:ietf:params:xml:ns:yang:ietf-system';
const NS = new Map([['ietf-system', SYS]]);
const ROLLBACK = 'urn:ietf:params:netconf:capability:rollback-on-error:1.0';
const EDITS: ConfigEdit[] = [
  { operation: 'replace', path: '/ietf-system:system/location', value: { 'ietf-system:location': 'rack 1' } },
  { operation: 'remove', path: '/ietf-system:system/contact' },
];
const CONFIG =
  `<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><system xmlns="${SYS}">` +
  '<location xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="replace">rack 1</location>' +
  '<contact xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="remove"/></system></config>';

/** A session that offers `capabilities`, answers `<ok/>` and records what it was sent. */
function recording(capabilities: readonly string[]): OperationSession & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    has: (c) => capabilities.includes(c),
    rpc: async (body) => {
      sent.push(body);
      const text = '<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><ok/></rpc-reply>';
      return { text, root: parseXml(text) } as never;
    },
    rpcData: async (body, read) => {
      sent.push(body);
      return read.whole(undefined);
    },
  };
}

test('the RPCs of a write, per device kind', (t) => {
  t.deepEqual(editRpcs(recording([CAP_CANDIDATE]), EDITS, NS), [
    '<lock><target><candidate/></target></lock>',
    `<edit-config><target><candidate/></target>${CONFIG}</edit-config>`,
    '<commit/>',
    '<unlock><target><candidate/></target></unlock>',
  ]);
  t.deepEqual(editRpcs(recording([CAP_WRITABLE_RUNNING, ROLLBACK]), EDITS, NS), [
    '<lock><target><running/></target></lock>',
    `<edit-config><target><running/></target><error-option>rollback-on-error</error-option>${CONFIG}</edit-config>`,
    '<unlock><target><running/></target></unlock>',
  ]);
  t.deepEqual(editRpcs(recording([CAP_WRITABLE_RUNNING]), EDITS, NS)[1], `<edit-config><target><running/></target>${CONFIG}</edit-config>`);
  t.deepEqual(editRpcs(recording([CAP_CANDIDATE]), [], NS), [], 'nothing to change: nothing sent');
  t.throws(() => editRpcs(recording([]), EDITS, NS), { instanceOf: NetconfRpcError });
});

test('a write sends exactly what its dry run shows', async (t) => {
  for (const caps of [[CAP_CANDIDATE], [CAP_WRITABLE_RUNNING, ROLLBACK]]) {
    const session = recording(caps);
    const shown = dryRunEdit(session, { edits: EDITS as never }, NS)['rpcs'];
    t.deepEqual(session.sent, [], 'the dry run sends nothing');
    const returned = await writeEdits(session, EDITS, NS);
    await new Promise((r) => setImmediate(r)); // the unlock is sent without waiting for its reply
    t.deepEqual(session.sent, shown);
    t.deepEqual(returned.rpcs, shown);
  }
});

test("a commit the device refuses: the edit is discarded, the lock released, the device's error thrown", async (t) => {
  const session = recording([CAP_CANDIDATE]);
  const refusing: OperationSession = {
    ...session,
    rpc: (body) => {
      if (body !== '<commit/>') return session.rpc(body);
      session.sent.push(body);
      return Promise.reject(
        new NetconfRpcError('commit', [{ type: 'application', tag: 'operation-failed', severity: 'error', message: 'must violated' }]),
      );
    },
  };
  const error = await t.throwsAsync(writeEdits(refusing, EDITS, NS), { instanceOf: NetconfRpcError });
  t.regex(error!.message, /must violated/);
  // commit and unlock went out together; discard-changes follows the refused commit
  t.deepEqual(
    session.sent.map((b) => /^<([\w-]+)/.exec(b)![1]),
    ['lock', 'edit-config', 'commit', 'unlock', 'discard-changes'],
  );
});

test('dry-run input that is not a list of edits: 400 naming the member, nothing sent', (t) => {
  const session = recording([CAP_CANDIDATE]);
  for (const [input, what] of [
    [{}, /input edits must be an array/],
    [{ edits: 'x' }, /input edits must be an array/],
    [{ edits: [3] }, /edits\[0\] is not an object/],
    [{ edits: [{ operation: 'drop', path: '/a:b' }] }, /edits\[0\]\.operation/],
    [{ edits: [{ operation: 'merge', path: 7 }] }, /edits\[0\]\.path/],
    [{ edits: [{ operation: 'merge', path: '/a:b', value: [1] }] }, /edits\[0\]\.value/],
  ] as const) {
    const e = t.throws(() => dryRunEdit(session, input as never, NS), { instanceOf: DryRunInputError });
    t.regex(e!.message, what);
    t.is(e!.status, 400);
  }
  t.throws(() => dryRunEdit(session, { edits: [{ operation: 'merge', path: 'not a path', value: { x: 1 } }] }, NS), {
    message: /not a path/,
  });
  t.deepEqual(session.sent, []);
});
