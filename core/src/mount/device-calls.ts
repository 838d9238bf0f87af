/**
 * The timing of southbound calls: every read, write and operation the core asks of a device goes through
 * {@link timedCall} (device-data.ts, and the uniconfig layer's pushes), which tells the observer the
 * service gave the mount manager (its metrics) how long the call took and whether it succeeded. One
 * place, so a device's latency is measured the same whichever layer asked.
 */
import { performance } from 'node:perf_hooks';

/** What the core asks of a device. */
export type DeviceOperation = 'read' | 'write' | 'invoke';

/** Told of each southbound call: the device's protocol, the kind of call, its seconds, and whether it succeeded. */
export type DeviceCallObserver = (protocol: string, operation: DeviceOperation, seconds: number, ok: boolean) => void;

/** What a call needs of the device (a MountedDevice, node.ts, which names the observer type from here). */
export interface TimedDevice {
  readonly node: { readonly protocol: string };
  readonly observe?: DeviceCallObserver;
}

/** Runs `call` (one southbound hook call for `device`), timed when the device carries an observer. */
export async function timedCall<T>(device: TimedDevice, operation: DeviceOperation, call: () => Promise<T>): Promise<T> {
  const observe = device.observe;
  if (observe === undefined) return call();
  const started = performance.now();
  let ok = false;
  try {
    const result = await call();
    ok = true;
    return result;
  } finally {
    observe(device.node.protocol, operation, (performance.now() - started) / 1000, ok);
  }
}
