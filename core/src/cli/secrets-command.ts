/**
 * `rosetta secrets rotate-key --new-key-file FILE`: seals every stored secret again under a new key
 * (datastore/rotate-key.ts), with the service stopped. It reads the configuration as `rosetta start`
 * does, since the rotation must open the store on the service's own schema (plugins' modules included).
 * Afterwards the configuration must name the new key (docs/configuration.md#secrets-key).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_DIRECTORY, JournalError, SecretBox } from '../datastore';
import { rotateSecretsKey } from '../datastore/rotate-key';
import { PluginHost } from '../plugins';
import { ConfigError, SECRETS_KEY_FILE_ENV, type ServiceConfig } from '../service/config';
import { assembleSchema } from '../service/schema';
import type { SchemaContext } from '../yang/schema';
import { SERVICE_OPTIONS, serviceConfig } from './service-options';

const HELP = `usage: rosetta secrets rotate-key --new-key-file FILE [--config FILE] [--data-dir DIR] [--yang DIR]... [--plugins FILE]

Seals every stored secret again under the key in FILE (created, mode 0600, when it does not exist) and
stops using the current one (secretsKeyFile, ROSETTA_SECRETS_KEY_FILE, or <dataDir>/device-secrets.key).
The service must be stopped. Then name FILE in secretsKeyFile (or ROSETTA_SECRETS_KEY_FILE), start the
service, and only then destroy the old key. Interrupted, it can be run again: it finishes the job.
  --new-key-file FILE  the new key (kept outside the data directory, readable by the service's user only)
  --config, --data-dir, --yang, --plugins   as for rosetta start: the service's configuration
  -h, --help           show this help

See docs/configuration.md, "Secrets key".`;

const OPTIONS = {
  'new-key-file': { type: 'string' },
  ...SERVICE_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

/** The service's local schema: its modules, `yangDirs` and the YANG of the plugins plugins.json enables. */
async function serviceSchema(config: ServiceConfig): Promise<SchemaContext> {
  if (config.pluginsFile === undefined) return assembleSchema(config.yangDirs).schema;
  const logger = {
    info: () => undefined,
    warn: (m: string) => console.error(`rosetta secrets: ${m}`),
    error: (m: string) => console.error(`rosetta secrets: ${m}`),
  };
  const host = await PluginHost.start({ configFile: config.pluginsFile, watch: false, logger, dataDir: config.dataDir });
  try {
    return assembleSchema([...config.yangDirs, ...host.localYangDirs()]).schema;
  } finally {
    await host.close();
  }
}

/** Runs `rosetta secrets <action> ...`; resolves with the exit code. */
export async function secretsCommand(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  let values: { 'new-key-file'?: string; config?: string; 'data-dir'?: string; yang?: string[]; plugins?: string; help?: boolean };
  try {
    values = parseArgs({ args: [...rest], options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    console.error(`rosetta secrets: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help || action === '--help' || action === '-h') {
    console.log(HELP);
    return 0;
  }
  if (action !== 'rotate-key') {
    console.error(`rosetta secrets: unknown action '${action ?? ''}'\n\n${HELP}`);
    return 2;
  }
  let config: ServiceConfig;
  let newKeyFile: string;
  try {
    if (values['new-key-file'] === undefined) throw new ConfigError('--new-key-file', 'is required: the file of the new key');
    newKeyFile = path.resolve(values['new-key-file']);
    config = serviceConfig(values);
    if (!fs.existsSync(config.dataDir)) throw new ConfigError('dataDir', `${config.dataDir} does not exist`);
  } catch (e) {
    console.error(`rosetta secrets: ${(e as Error).message}`);
    return 2;
  }
  try {
    const oldBox = SecretBox.open(config.dataDir, config.secretsKeyFile);
    const newBox = SecretBox.open(config.dataDir, newKeyFile);
    const schema = await serviceSchema(config);
    const log = (m: string) => console.error(`rosetta secrets: ${m}`);
    const report = await rotateSecretsKey(path.join(config.dataDir, CONFIG_DIRECTORY), schema, oldBox, newBox, log);
    if (report.alreadyRotated) console.log(`rosetta secrets: the stored secrets are already sealed with ${newKeyFile}`);
    else {
      console.log(`rosetta secrets: ${report.resealed} stored secret(s) sealed again with ${newKeyFile}`);
      if (report.kept > 0) console.log(`rosetta secrets: ${report.kept} sealed value(s) the old key does not open were kept as they are`);
    }
    console.log(
      `rosetta secrets: now set secretsKeyFile (or ${SECRETS_KEY_FILE_ENV}) to ${newKeyFile} and start the service; then destroy ${config.secretsKeyFile}`,
    );
    return 0;
  } catch (e) {
    const locked = e instanceof JournalError && e.code === 'locked';
    console.error(`rosetta secrets: ${(e as Error).message}${locked ? ' (stop the service first)' : ''}`);
    return 1;
  }
}
