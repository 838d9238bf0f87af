/**
 * The shutdown stack: closers run newest first, each after the previous settled; one that throws does
 * not keep the older ones from running; a failed start-up rethrows its own error, not a closer's.
 */
import test from 'ava';
import { CloserStack } from '../../src/service/closers';

test('unwind runs the closers newest first, each after the previous one settled', async (t) => {
  const stack = new CloserStack();
  const order: string[] = [];
  stack.push(() => {
    order.push('datastores');
  });
  stack.push(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    order.push('plugins');
  });
  stack.push(() => {
    order.push('server');
  });
  await stack.unwind();
  t.deepEqual(order, ['server', 'plugins', 'datastores']);
  await stack.unwind();
  t.deepEqual(order, ['server', 'plugins', 'datastores'], 'a second unwind closes nothing twice');
});

test('a closer that throws does not stop the older ones; its error comes out after they ran', async (t) => {
  const stack = new CloserStack();
  const order: string[] = [];
  stack.push(() => {
    order.push('datastores');
  });
  stack.push(() => {
    throw new Error('plugin close failed');
  });
  stack.push(() => {
    order.push('server');
  });
  await t.throwsAsync(stack.unwind(), { message: 'plugin close failed' });
  t.deepEqual(order, ['server', 'datastores']);
});

test('abandon unwinds what started and rethrows the start-up error, not a closer error', async (t) => {
  const stack = new CloserStack();
  const order: string[] = [];
  stack.push(() => {
    order.push('datastores');
  });
  stack.push(() => {
    throw new Error('close failed');
  });
  await t.throwsAsync(stack.abandon(new Error('cannot listen')), { message: 'cannot listen' });
  t.deepEqual(order, ['datastores']);
});
