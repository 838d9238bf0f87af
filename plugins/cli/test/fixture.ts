/**
 * What the CLI plugin's tests share: the plugin set up on a fresh hooks object (as the plugin host does),
 * the device info the mount layer would hand it (with the SDK example's FRR unit, or plugins/frr's when
 * built), and a recording logger that lets tests check no line ever carries a password.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  createHooks,
  type DeviceConnection,
  type DeviceEvents,
  type DeviceInfo,
  type JsonObject,
  type JsonValue,
  type PluginLogger,
  type RosettaHooks,
  type ServingUnit,
} from '@rosetta/core';
import { pathValue } from '@rosetta/sdk/testing';
import plugin from '../src/index';

/** Loads a translation-unit plugin's compiled entry (its default export's unit) as a ServingUnit. */
export function servingUnit(folder: string, entry: string): ServingUnit {
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    rosetta: { device: { type: string; versions: string } };
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(path.join(folder, entry)) as { default: { translationUnit: ServingUnit['definition'] } };
  return {
    plugin: manifest.name,
    version: manifest.version,
    deviceType: manifest.rosetta.device.type,
    versions: manifest.rosetta.device.versions,
    yangDir: path.join(folder, 'yang'),
    definition: loaded.default.translationUnit,
  };
}

const REPO = path.resolve(__dirname, '../../../..');
export const EXAMPLE_UNIT = servingUnit(path.join(REPO, 'sdk/examples/frr-minimal'), 'dist/index.js');

/** plugins/frr's unit when it is built, else undefined. */
export function frrPluginUnit(): ServingUnit | undefined {
  const folder = path.join(REPO, 'plugins/frr');
  if (!fs.existsSync(path.join(folder, 'dist/src/index.js'))) return undefined;
  try {
    return servingUnit(folder, 'dist/src/index.js');
  } catch {
    return undefined;
  }
}

export interface Logged extends PluginLogger {
  readonly lines: string[];
}

export function recordingLogger(): Logged {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => {
      lines.push(`info ${m}`);
    },
    warn: (m) => {
      lines.push(`warn ${m}`);
    },
    error: (m) => {
      lines.push(`error ${m}`);
    },
  };
}

/** The plugin tapped into a fresh hooks object, and shortcuts that call the hooks as the mount layer will. */
export interface Harness {
  readonly hooks: RosettaHooks;
  readonly log: Logged;
  connect(
    nodeId: string,
    settings: Record<string, JsonValue>,
    units?: readonly ServingUnit[],
    events?: DeviceEvents,
  ): Promise<{ connection: DeviceConnection; device: DeviceInfo }>;
  read(
    target: { connection: DeviceConnection; device: DeviceInfo },
    path: string,
    content?: 'config' | 'nonconfig' | 'all',
  ): Promise<JsonObject | undefined>;
  write(
    target: { connection: DeviceConnection; device: DeviceInfo },
    before: JsonObject,
    after: JsonObject,
  ): Promise<readonly string[] | undefined>;
  invoke(
    target: { connection: DeviceConnection; device: DeviceInfo },
    operation: string,
    input: JsonObject,
  ): Promise<JsonObject | null | undefined>;
}

export async function harness(): Promise<Harness> {
  const hooks = createHooks();
  const log = recordingLogger();
  await plugin.setup!({
    hooks,
    settings: {},
    name: '@rosetta/plugin-cli',
    version: '0.1.0',
    folder: path.resolve(__dirname, '../..'),
    yangDir: undefined,
    log,
  });
  return {
    hooks,
    log,
    async connect(nodeId, settings, units = [EXAMPLE_UNIT], events) {
      const type = typeof settings['device-type'] === 'string' ? settings['device-type'] : undefined;
      const version = typeof settings['device-version'] === 'string' ? settings['device-version'] : undefined;
      const device: DeviceInfo = {
        nodeId,
        protocol: 'cli',
        units,
        ...(type !== undefined ? { deviceType: type } : {}),
        ...(version !== undefined ? { deviceVersion: version } : {}),
      };
      const connection = await hooks.device.connect.for('cli').promise({ device, settings, ...(events ? { events } : {}) });
      if (!connection) throw new Error('no tap claimed the cli device');
      return { connection, device };
    },
    read: (t, p, content = 'config') =>
      hooks.device.read.for('cli').promise({ device: t.device, connection: t.connection, path: pathValue(p), content }),
    async write(t, before, after) {
      return (await hooks.device.write.for('cli').promise({ device: t.device, connection: t.connection, before, after }))?.commands;
    },
    async invoke(t, operation, input) {
      return (await hooks.device.invoke.for('cli').promise({ device: t.device, connection: t.connection, operation, input }))?.output;
    },
  };
}

/** The settings of an install-node `cli` container for a device on loopback. */
export function cliSettings(port: number, extra: Record<string, JsonValue> = {}): Record<string, JsonValue> {
  return {
    host: '127.0.0.1',
    port,
    'transport-type': 'ssh',
    'device-type': 'frr',
    'device-version': '8.4.4',
    username: 'frruser',
    password: 'frrpass',
    ...extra,
  };
}
