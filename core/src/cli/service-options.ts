/**
 * The command-line options that say which service a command acts on (`--config`, `--data-dir`,
 * `--yang`, `--plugins`), shared by `rosetta start` and the commands that work on a stopped service's
 * data (`rosetta secrets`), so each reads the configuration exactly as the service does: the file,
 * then the options over it, and ./plugins.json when no configuration file is named and it exists.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, type ConfigOverrides, loadConfig, type ServiceConfig } from '../service/config';

/** parseArgs options of the shared flags; spread into a command's own. */
export const SERVICE_OPTIONS = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
  yang: { type: 'string', multiple: true },
  plugins: { type: 'string' },
  database: { type: 'string' },
} as const;

/** The values parseArgs gives for SERVICE_OPTIONS. */
export interface ServiceOptionValues {
  readonly config?: string;
  readonly 'data-dir'?: string;
  readonly yang?: string[];
  readonly plugins?: string;
  readonly database?: string;
}

/** The service configuration the flags name, `extra` overriding; throws ConfigError naming a bad one. */
export function serviceConfig(values: ServiceOptionValues, extra: ConfigOverrides = {}): ServiceConfig {
  const defaultPlugins = path.resolve('plugins.json');
  const pluginsFile = values.plugins ?? (values.config === undefined && fs.existsSync(defaultPlugins) ? defaultPlugins : undefined);
  const config = loadConfig(values.config, {
    ...extra,
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
    ...(values.yang !== undefined ? { yangDirs: values.yang } : {}),
    ...(pluginsFile !== undefined ? { pluginsFile } : {}),
    ...(values.database !== undefined ? { databaseUrl: values.database } : {}),
  });
  if (pluginsFile !== undefined && !fs.existsSync(pluginsFile)) throw new ConfigError('--plugins', `${pluginsFile} does not exist`);
  for (const d of config.yangDirs) if (!fs.existsSync(d)) throw new ConfigError('--yang', `${d} does not exist`);
  return config;
}
