/**
 * What the end-to-end test files share: the netconfd peer (test/peers/netconf-device.sh, started on a port
 * and state folder of each file's own so files can run side by side), why a file skips its netconfd tests,
 * and one RESTCONF request helper answering status, text, parsed JSON and headers.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const NETCONF_PEER_SCRIPT = path.resolve(__dirname, '../..', 'test/peers/netconf-device.sh'); // from test/dist

/** A netconfd peer of one test file: its SSH port and the folder its state lives in. */
export interface NetconfPeerPlace {
  readonly port: number;
  readonly state: string;
}

/** Why the netconfd peer cannot run here, or undefined when it can. */
export function netconfdUnavailable(): string | undefined {
  if (!fs.existsSync('/usr/sbin/netconfd'))
    return 'netconfd is not installed (apt-get install netconfd netconfd-module-ietf-interfaces netconfd-module-ietf-system)';
  if (process.getuid?.() !== 0) return 'the netconfd peer script must run as root';
  return undefined;
}

/** Starts, stops or restarts the netconfd peer at `place`; its script's output. */
export function netconfPeer(place: NetconfPeerPlace, command: 'start' | 'stop' | 'restart'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [NETCONF_PEER_SCRIPT, command],
      {
        env: { ...process.env, NETCONF_PEER_PORT: String(place.port), NETCONF_PEER_STATE: place.state, NETCONF_PEER_NO_INSTALL: '1' },
        timeout: 60_000,
      },
      (err, stdout, stderr) => (err ? reject(new Error(`netconf-device.sh ${command}: ${stderr || err.message}`)) : resolve(stdout)),
    );
  });
}

/** A RESTCONF answer: `json` is the parsed body, undefined when it is not JSON. */
export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly json: any;
  readonly headers: Headers;
}

/** Sends `method p` to the service at `base` with a JSON body (RFC 7951) and a cookie when given. */
export async function restconfRequest(base: string, method: string, p: string, body?: unknown, cookie?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/yang-data+json';
  if (cookie !== undefined) headers['cookie'] = cookie;
  const res = await fetch(base + p, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

/**
 * Writes `<dir>/plugins.json`: the repository's plugins.json with absolute paths and without watching
 * (a rebuild elsewhere must not swap plugins under a running test), each plugin's `config` from
 * `configOf` when it gives one. Answers the file's path.
 */
export function writeRepositoryPlugins(dir: string, configOf: (pluginPath: string) => object | undefined = () => undefined): string {
  const repo = path.resolve(__dirname, '../..'); // from test/dist
  const own = JSON.parse(fs.readFileSync(path.join(repo, 'plugins.json'), 'utf8')) as {
    plugins: Array<{ path: string; enabled: boolean }>;
  };
  const plugins = own.plugins.map((p) => {
    const config = configOf(p.path);
    return { ...p, path: path.join(repo, p.path), ...(config !== undefined ? { config } : {}) };
  });
  const file = path.join(dir, 'plugins.json');
  fs.writeFileSync(file, JSON.stringify({ watch: false, plugins }));
  return file;
}
