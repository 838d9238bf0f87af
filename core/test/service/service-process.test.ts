/**
 * The real service as a separate process (`core/bin/rosetta.js start` with the durable journal):
 * restarts keep the Config datastore, SIGTERM and SIGINT stop it cleanly with a request in flight
 * finishing, and SIGKILL in the middle of concurrent writes loses no acknowledged write and leaves no
 * request half-applied. `npm start`'s defaults (port 8181, ./data, ./plugins.json) are checked in
 * a scratch working folder so that a real 8181 listener is never needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { IANA_IF_TYPE, INTERFACES, modelYangDir } from '../restconf/http-fixture';

const BIN = path.resolve(__dirname, '../../../bin/rosetta.js');
const IF = '/rests/data/ietf-interfaces:interfaces';

interface Running {
  readonly proc: ChildProcess;
  readonly url: string;
  /** Everything printed so far (stdout and stderr). */
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `rosetta start` in a child with `args` from `cwd`; resolves once it listens (bounded). */
async function startProcess(args: string[], cwd = os.tmpdir()): Promise<Running> {
  const proc = spawn(process.execPath, [BIN, 'start', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => {
    out += d;
  });
  proc.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const where = /listening on (\S+)\/rests/.exec(out);
    // The start-up lines may arrive in several chunks: wait for the last one that is always printed.
    if (where && /modules loaded: .*\n/.test(out)) return { proc, url: where[1]!, output: () => out, exited };
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`rosetta start did not come up: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits (bounded) until the child's output matches `pattern`. */
async function waitFor(s: Running, pattern: RegExp): Promise<void> {
  for (const deadline = Date.now() + 10_000; !pattern.test(s.output()) && Date.now() < deadline; )
    await new Promise((r) => setTimeout(r, 25));
}

function folders(): { dataDir: string; yangDir: string } {
  return { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-proc-')), yangDir: modelYangDir([INTERFACES, IANA_IF_TYPE]) };
}

const entry = (name: string, description: string, enabled: boolean) => ({
  name,
  type: 'iana-if-type:ethernetCsmacd',
  description,
  enabled,
});

async function put(url: string, p: string, body: unknown): Promise<number> {
  const r = await fetch(url + p, { method: 'PUT', headers: { 'content-type': 'application/yang-data+json' }, body: JSON.stringify(body) });
  await r.text();
  return r.status;
}

async function interfaces(url: string): Promise<Map<string, { description: string; enabled: boolean }>> {
  const r = await fetch(`${url + IF}?content=config`);
  if (r.status === 404) return new Map();
  const json = (await r.json()) as {
    'ietf-interfaces:interfaces': { interface?: Array<{ name: string; description: string; enabled: boolean }> };
  };
  return new Map((json['ietf-interfaces:interfaces'].interface ?? []).map((e) => [e.name, e]));
}

test('SIGKILL during concurrent writes: every acknowledged write survives a restart, none is half there', async (t) => {
  const { dataDir, yangDir } = folders();
  const args = ['--port', '0', '--data-dir', dataDir, '--yang', yangDir];
  for (let round = 0; round < 2; round++) {
    const s = await startProcess(args);
    // Per writer: the last acknowledged serial of its own entry, and of its pair (two entries in one PATCH).
    const acked = new Map<string, number>();
    let stop = false;
    const writer = async (w: number) => {
      for (let i = round * 1_000_000; !stop; i++) {
        const single = put(s.url, `${IF}/interface=w${w}`, { 'ietf-interfaces:interface': [entry(`w${w}`, `serial ${i}`, i % 2 === 0)] });
        const pair = fetch(s.url + IF, {
          method: 'PATCH',
          headers: { 'content-type': 'application/yang-data+json' },
          body: JSON.stringify({
            'ietf-interfaces:interfaces': { interface: [entry(`p${w}a`, `serial ${i}`, true), entry(`p${w}b`, `serial ${i}`, true)] },
          }),
        }).then(async (r) => {
          await r.text();
          return r.status;
        });
        try {
          const [a, b] = await Promise.all([single, pair]);
          if (a === 201 || a === 204) acked.set(`w${w}`, i);
          if (b === 200) acked.set(`p${w}`, i);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    // kill once writes are being acknowledged (a loaded machine may take seconds to answer the first),
    // then a little later so the kill lands in the middle of writes in flight
    const started = Date.now();
    while (acked.size < 4 && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200 + round * 300));
    s.proc.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    t.is((await s.exited).signal, 'SIGKILL');
    t.true(acked.size > 0, 'some writes were acknowledged before the kill');

    const again = await startProcess(args);
    try {
      const stored = await interfaces(again.url);
      for (const [name, serial] of acked) {
        if (name.startsWith('w')) {
          const e = stored.get(name);
          t.truthy(e, `${name} was acknowledged`);
          const got = Number(/serial (\d+)/.exec(e!.description)![1]);
          t.true(got >= serial, `${name}: acknowledged serial ${serial}, stored ${got}`);
          t.is(e!.enabled, got % 2 === 0, `${name}: description and enabled come from the same request`);
        } else {
          const a = stored.get(`${name}a`);
          const b = stored.get(`${name}b`);
          t.truthy(a && b, `${name}: both entries of an acknowledged PATCH`);
          t.is(a!.description, b!.description, `${name}: the two entries of one PATCH are never split`);
          t.true(Number(/serial (\d+)/.exec(a!.description)![1]) >= serial);
        }
      }
    } finally {
      again.proc.kill('SIGTERM');
      await again.exited;
    }
  }
});

test('SIGTERM and SIGINT: a request in flight finishes, the store is closed, data is there after a restart', async (t) => {
  const { dataDir, yangDir } = folders();
  const args = ['--port', '0', '--data-dir', dataDir, '--yang', yangDir];
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const s = await startProcess(args);
    const url = new URL(s.url);
    const body = JSON.stringify({ 'ietf-interfaces:interface': [entry(signal, 'in flight', true)] });
    // Half a request, the signal, then the rest: the answer must still be 201.
    const answer = new Promise<string>((resolve) => {
      const sock = net.connect(Number(url.port), url.hostname, () => {
        sock.write(
          `PUT ${IF}/interface=${signal} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        );
      });
      let out = '';
      sock
        .on('data', (d) => {
          out += d;
        })
        .on('close', () => resolve(out))
        .on('error', () => resolve(out));
      setTimeout(() => {
        s.proc.kill(signal);
        setTimeout(() => sock.write(body.slice(10)), 300);
      }, 100);
    });
    t.regex(await answer, /^HTTP\/1.1 201/, signal);
    const exit = await s.exited;
    t.is(exit.code, 0, `${signal}: ${s.output()}`);
    t.regex(s.output(), new RegExp(`${signal}: stopping`));
    t.regex(s.output(), /rosetta: stopped/);
  }
  const again = await startProcess(args);
  try {
    const stored = await interfaces(again.url);
    t.is(stored.get('SIGTERM')?.description, 'in flight');
    t.is(stored.get('SIGINT')?.description, 'in flight');
  } finally {
    again.proc.kill('SIGTERM');
    await again.exited;
  }
});

test('start-up prints where it listens, the data folder and the modules; --yang modules are served', async (t) => {
  const { dataDir, yangDir } = folders();
  const s = await startProcess(['--port', '0', '--data-dir', dataDir, '--yang', yangDir]);
  try {
    t.regex(s.output(), /listening on http:\/\/127\.0\.0\.1:\d+\/rests/);
    t.regex(s.output(), new RegExp(`data in ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    t.regex(s.output(), /modules loaded: .*ietf-interfaces@2018-02-20.*/);
    t.regex(s.output(), /network-topology/);
    t.is(await put(s.url, `${IF}/interface=x`, { 'ietf-interfaces:interface': [entry('x', 'd', true)] }), 201);
  } finally {
    s.proc.kill('SIGTERM');
    await s.exited;
  }
});

test('defaults without flags: ./data, ./plugins.json when present; bad config and flags stop start-up naming them', async (t) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-cwd-'));
  // No --data-dir: ./data in the working folder is created and used (the port is overridden only so
  // the test never needs 8181; the default port itself is checked in service.test.ts).
  const s = await startProcess(['--port', '0'], cwd);
  try {
    t.regex(
      s.output(),
      new RegExp(
        `data in ${path.join(fs.realpathSync(cwd), 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|data in ${path.join(cwd, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    t.true(fs.existsSync(path.join(cwd, 'data')));
    t.notRegex(s.output(), /plugins from/, 'no plugins.json in the working folder: none loaded');
  } finally {
    s.proc.kill('SIGTERM');
    await s.exited;
  }
  fs.writeFileSync(path.join(cwd, 'plugins.json'), JSON.stringify({ watch: false, plugins: [] }));
  const withPlugins = await startProcess(['--port', '0'], cwd);
  try {
    await waitFor(withPlugins, /plugins from/);
    t.regex(withPlugins.output(), /plugins from .*plugins\.json/, './plugins.json is loaded when present');
  } finally {
    withPlugins.proc.kill('SIGTERM');
    await withPlugins.exited;
  }
  const run = (args: string[]) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const p = spawn(process.execPath, [BIN, 'start', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout!.on('data', (d) => {
        out += d;
      });
      p.stderr!.on('data', (d) => {
        out += d;
      });
      p.once('exit', (code) => resolve({ code, out }));
    });
  const cfg = path.join(cwd, 'bad.json');
  fs.writeFileSync(cfg, JSON.stringify({ port: 'eighty' }));
  let r = await run(['--config', cfg]);
  t.is(r.code, 2);
  t.regex(r.out, /port/);
  r = await run(['--bogus']);
  t.is(r.code, 2);
  t.regex(r.out, /--bogus/);
  r = await run(['--plugins', path.join(cwd, 'missing.json'), '--port', '0']);
  t.is(r.code, 2);
  t.regex(r.out, /--plugins/);
});

test('SIGHUP applies log.level and metrics.enabled at once, says which other fields wait for a restart, and keeps the running settings when the file is bad', async (t) => {
  const { dataDir, yangDir } = folders();
  const cfg = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-reload-')), 'rosetta.json');
  fs.writeFileSync(cfg, JSON.stringify({ log: { level: 'info' } }));
  const s = await startProcess(['--config', cfg, '--port', '0', '--data-dir', dataDir, '--yang', yangDir]);
  const reload = async (config: unknown, said: RegExp) => {
    fs.writeFileSync(cfg, typeof config === 'string' ? config : JSON.stringify(config));
    s.proc.kill('SIGHUP');
    await waitFor(s, said);
    t.regex(s.output(), said);
  };
  const get = (p: string, reqId: string) =>
    fetch(s.url + p, { headers: { 'x-request-id': reqId } }).then(async (r) => {
      await r.text();
      return r.status;
    });
  try {
    t.is(await put(s.url, `${IF}/interface=x`, { 'ietf-interfaces:interface': [entry('x', 'd', true)] }), 201);
    t.is(await get(`${IF}/interface=x`, 'before-reload'), 200);
    t.is(await get('/metrics', 'scrape-1'), 200);
    await reload({ log: { level: 'debug' }, metrics: { enabled: false } }, /configuration reloaded: log\.level debug, metrics off/);
    t.is(await get('/metrics', 'scrape-2'), 404, 'metrics switched off: /metrics is not served');
    t.is(await get(`${IF}/interface=x`, 'while-debug'), 200);
    await waitFor(s, /"reqId":"while-debug"/);
    t.regex(s.output(), /"level":"debug","time":\d+,"reqId":"while-debug","method":"GET"/, 'debug: a quick GET writes its access line');
    t.notRegex(s.output(), /"reqId":"before-reload"/, 'at info the same GET wrote none');
    await reload(
      { log: { level: 'info' }, metrics: { enabled: true }, events: { subscriberBufferEvents: 50 } },
      /configuration reloaded: log\.level info, metrics on/,
    );
    t.regex(s.output(), /SIGHUP: events changed; read at start only/);
    const scrape = await fetch(`${s.url}/metrics`);
    t.is(scrape.status, 200);
    const text = await scrape.text();
    t.regex(
      text,
      /rosetta_http_requests_total\{method="PUT",route="[^"]+",status="201"\} 1\n/,
      'the counts from before the pause are kept',
    );
    const gets = /rosetta_http_requests_total\{method="GET",route="\/rests\/data[^"]*",status="200"\} (\d+)/.exec(text);
    t.is(gets?.[1], '1', 'the GET answered while metrics were off is not counted');
    await reload('{ "log": ', /configuration not reloaded, the running settings stay: /);
    t.is(await get('/metrics', 'scrape-3'), 200, 'a bad file changes nothing');
    await reload({ log: { level: 'bogus' } }, /configuration not reloaded, the running settings stay: .*log\.level/);
    t.is(await put(s.url, `${IF}/interface=y`, { 'ietf-interfaces:interface': [entry('y', 'd', true)] }), 201, 'the service still serves');
  } finally {
    s.proc.kill('SIGTERM');
    await s.exited;
  }
});
