/**
 * The install-node member readers (src/node-settings.ts): what each accepts, the fallback and the one
 * problem per bad member, that a secret never shows in a message, and that garbage stays bounded.
 */
import test from 'ava';
import { settingFlag, settingInteger, settingSecret, settingText, unknownSettings } from '../src';

test('settingInteger: numbers and numeric strings in range; anything else is the fallback and one problem', (t) => {
  const problems: string[] = [];
  t.is(settingInteger(830, 'port', 22, problems, 1, 65535), 830);
  t.is(settingInteger(' 830 ', 'port', 22, problems, 1, 65535), 830);
  t.is(settingInteger(undefined, 'port', 22, problems, 1, 65535), 22);
  t.deepEqual(problems, []);
  t.is(settingInteger(0, 'port', 22, problems, 1, 65535), 22);
  t.is(settingInteger(1.5, 'port', 22, problems, 1, 65535), 22);
  t.is(settingInteger('12345678901', 'port', 22, problems, 1, 65535), 22);
  t.is(settingInteger(true, 'port', 22, problems, 1, 65535), 22);
  t.is(problems.length, 4);
  t.true(problems.every((p) => p.startsWith('port: must be an integer from 1 to 65535, got ')));
  const huge: string[] = [];
  settingInteger('9'.repeat(100_000), 'port', 22, huge, 1, 65535);
  t.true(huge[0]!.length < 100, 'a bad value is quoted in at most 40 characters');
});

test('settingText: a non-empty bounded string; required and absent is a problem', (t) => {
  const problems: string[] = [];
  t.is(settingText('r1', 'host', problems, true), 'r1');
  t.is(settingText(undefined, 'dir', problems, false), undefined);
  t.deepEqual(problems, []);
  t.is(settingText(undefined, 'host', problems, true), undefined);
  t.is(settingText('', 'host', problems, true), undefined);
  t.is(settingText('x'.repeat(1025), 'host', problems, true), undefined);
  t.is(settingText(7, 'host', problems, true), undefined);
  t.deepEqual(problems, ['host: required', ...Array(3).fill('host: must be a non-empty string of at most 1024 characters')]);
});

test('settingSecret: empty allowed, line breaks refused, the value never in a message', (t) => {
  const problems: string[] = [];
  t.is(settingSecret('', 'password', problems, true), '');
  t.is(settingSecret('s3cr3t', 'password', problems, true), 's3cr3t');
  t.deepEqual(problems, []);
  t.is(settingSecret('s3cr3t\nreload', 'password', problems, true), undefined);
  t.is(settingSecret(undefined, 'password', problems, true), undefined);
  t.is(settingSecret(undefined, 'secret', problems, false), undefined);
  t.is(problems.length, 2);
  t.false(problems.some((p) => p.includes('s3cr3t')));
});

test('settingFlag and unknownSettings', (t) => {
  const problems: string[] = [];
  t.true(settingFlag(true, 'tcp-only', false, problems));
  t.false(settingFlag(undefined, 'tcp-only', false, problems));
  t.false(settingFlag('yes', 'tcp-only', false, problems));
  unknownSettings({ host: 'r1', colour: 'red' }, new Set(['host']), problems);
  t.deepEqual(problems, ['tcp-only: must be true or false', 'colour: unknown setting (known: host)']);
});
