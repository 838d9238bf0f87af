/**
 * A worker process of rosetta-sim: plays its share of the fleet (startFleetDevices) and carries out the
 * commands the coordinator (fleet-process.ts) relays over the IPC channel. It lives exactly as long as
 * that channel: when the coordinator goes, however it goes, the worker exits and its listeners with it,
 * so a fleet never leaves orphans holding ports.
 */
import { startFleetDevices, type Fleet, type FleetDeviceSpec, type FleetShared } from './fleet';

/** A command of rosetta-sim's stdin protocol. */
export type FleetCommand = 'drop' | 'stall' | 'resume' | 'restart' | 'running' | 'stats';
export const FLEET_COMMANDS: readonly FleetCommand[] = ['drop', 'stall', 'resume', 'restart', 'running', 'stats'];

/** What the coordinator sends a worker. */
export type ToWorker =
  | { readonly type: 'start'; readonly specs: readonly FleetDeviceSpec[]; readonly shared: FleetShared }
  | { readonly type: 'command'; readonly seq: number; readonly cmd: FleetCommand; readonly ids?: readonly string[] };

/** One command's answer as a line of the stdin protocol (`ok` and what the command reports). */
export type FleetAnswer = { readonly ok: true; readonly [field: string]: unknown } | { readonly ok: false; readonly error: string };

/** What a worker sends back. */
export type FromWorker =
  | { readonly type: 'ready'; readonly devices: Fleet['devices'] }
  | { readonly type: 'failed'; readonly error: string }
  | { readonly type: 'answer'; readonly seq: number; readonly answer: FleetAnswer };

/** Carries out one command on a fleet: the outage commands count the devices, running and stats report. */
export async function runFleetCommand(fleet: Fleet, cmd: FleetCommand, ids: readonly string[] | undefined): Promise<FleetAnswer> {
  try {
    switch (cmd) {
      case 'running': {
        const chosen = ids ?? fleet.devices.map((d) => d.id);
        return { ok: true, running: Object.fromEntries(chosen.map((id) => [id, fleet.running(id)])) };
      }
      case 'stats':
        return { ok: true, ...fleet.stats() };
      default:
        await fleet[cmd](ids);
        return { ok: true, devices: ids?.length ?? fleet.devices.length };
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

function runWorker(): void {
  let fleet: Fleet | undefined;
  const send = (message: FromWorker) => process.send?.(message);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: ToWorker) => {
    if (message.type === 'start') {
      startFleetDevices(message.specs, message.shared).then(
        (started) => {
          fleet = started;
          send({ type: 'ready', devices: started.devices });
        },
        (e: unknown) => {
          send({ type: 'failed', error: e instanceof Error ? e.message : String(e) });
          process.exit(1);
        },
      );
      return;
    }
    if (fleet === undefined) {
      send({ type: 'answer', seq: message.seq, answer: { ok: false, error: 'the fleet is not started' } });
      return;
    }
    void runFleetCommand(fleet, message.cmd, message.ids).then((answer) => send({ type: 'answer', seq: message.seq, answer }));
  });
}

if (require.main === module) runWorker();
