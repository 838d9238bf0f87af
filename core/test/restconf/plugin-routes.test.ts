/**
 * Plugin routes (restconf/plugin-routes.ts) in the dispatcher (restconf/dispatcher.ts): a data request
 * goes through express, their adapter, only when a route of its plugin generation may take its path. A
 * generation whose `server.routes` taps register nothing for `/rests/data` keeps data requests on the
 * direct path; routes on a data path, a prefix `use`, or a pathless `use` (every request) take them;
 * a hot swap (a new hooks object) brings its own table; a router is built once per generation.
 */
import test from 'ava';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHooks, type RosettaHooks, type ServerRoutesContext } from '../../src/hooks';
import type { PluginScope } from '../../src/plugins/generation';
import { createRestconfHandler } from '../../src/restconf/dispatcher';
import type { RestconfContext } from '../../src/restconf/context';
import { createPluginRoutes } from '../../src/restconf/plugin-routes';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import { memoryDatastores } from './http-fixture';
import { MODEL_DIRS } from '../data/fixture';

const repo = new ModuleRepository([...MODEL_DIRS]);
const schema = compileSchema(repo, { modules: ['ietf-interfaces', 'iana-if-type'] });
const IF = '/rests/data/ietf-interfaces:interfaces';

type RoutesTap = (c: ServerRoutesContext) => void;

/** A generation whose only taps are `server.routes` taps (one per entry of `taps`). */
function generation(taps: RoutesTap[]): RosettaHooks {
  const hooks = createHooks();
  for (const [i, tap] of taps.entries()) hooks.server.routes.tap(`plugin-${i}`, tap);
  return hooks;
}

interface Served {
  url: string;
  /** `METHOD path` of each request that reached express. */
  toExpress: string[];
  leases: { taken: number; released: number };
  /** Makes `hooks` the generation new requests lease (a hot swap). */
  swap(hooks: RosettaHooks): void;
  close(): Promise<void>;
}

async function serve(hooks: RosettaHooks): Promise<Served> {
  let current = hooks;
  const leases = { taken: 0, released: 0 };
  const plugins = {
    acquire(): PluginScope {
      leases.taken++;
      let released = false;
      return {
        generation: 0,
        hooks: current,
        unitsFor: () => ({ units: [] }) as never,
        release: () => {
          if (!released) {
            released = true;
            leases.released++;
          }
        },
      };
    },
  };
  const ctx: RestconfContext = {
    schema,
    datastores: await memoryDatastores('', schema),
    plugins,
    options: { keyDelimiter: '%22', bodyLimit: 4096, defaultContent: 'all' },
    log: { info: () => undefined, error: () => undefined },
  };
  const local = {
    resolve: () => {
      throw new Error('unused');
    },
    readConfig: () => undefined,
    readSecret: () => undefined,
  };
  const routes = createPluginRoutes(ctx, local);
  const toExpress: string[] = [];
  const handler = createRestconfHandler(ctx, {
    pluginRoutes: {
      claims: routes.claims,
      serve: (req, res, next, fail) => {
        toExpress.push(`${req.method} ${req.url}`);
        routes.serve(req, res, next, fail);
      },
    },
  });
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    toExpress,
    leases,
    swap: (next) => {
      current = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(base: string, method: string, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + p, { method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('taps that register no route, or none on a data path, leave data requests on the direct path', async (t) => {
  let built = 0;
  const s = await serve(
    generation([
      () => {
        built++;
      },
      ({ routes }) => {
        routes.use('/rests/http-client', (_req: unknown, res: http.ServerResponse) => {
          res.end('client');
        });
      },
      ({ routes }) => {
        routes.get('/status', (_req: unknown, res: http.ServerResponse) => {
          res.end('up');
        });
      },
    ]),
  );
  try {
    t.is((await send(s.url, 'GET', IF)).status, 404, 'no interfaces yet: answered by RESTCONF');
    t.is((await send(s.url, 'GET', `${IF}?depth=1`)).status, 404);
    t.is((await send(s.url, 'OPTIONS', IF)).status, 200);
    t.deepEqual(s.toExpress, [], 'no data request reached express');
    t.deepEqual(await send(s.url, 'GET', '/rests/http-client/x'), { status: 200, body: 'client' });
    t.deepEqual(await send(s.url, 'GET', '/status'), { status: 200, body: 'up' });
    t.deepEqual(s.toExpress, ['GET /rests/http-client/x', 'GET /status']);
    t.is(built, 1, "the generation's router was built once");
    t.is(s.leases.released, s.leases.taken, 'every lease is released');
  } finally {
    await s.close();
  }
});

test('a route on a data path, or a use on a prefix of it, takes exactly the requests it matches', async (t) => {
  // A colon in a path pattern starts a parameter (path-to-regexp), so the module prefix's colon is escaped.
  const s = await serve(
    generation([
      ({ routes }) => {
        routes.get(
          '/rests/data/ietf-interfaces\\:interfaces/interface=:name',
          (req: { params: { name: string } }, res: http.ServerResponse) => {
            res.end(`plugin ${req.params.name}`);
          },
        );
      },
      ({ routes }) => {
        routes.use('/rests/data/ietf-interfaces\\:interfaces-state', (_req: unknown, res: http.ServerResponse) => {
          res.end('state');
        });
      },
    ]),
  );
  try {
    t.deepEqual(await send(s.url, 'GET', `${IF}/interface=eth0`), { status: 200, body: 'plugin eth0' });
    t.deepEqual(await send(s.url, 'GET', '/rests/data/ietf-interfaces:interfaces-state/interface=x?depth=2'), {
      status: 200,
      body: 'state',
    });
    t.is((await send(s.url, 'GET', IF)).status, 404, 'the parent is not routed by the plugin');
    // A malformed escape in the route's parameter: express decides (and answers 400), not the direct path.
    t.is((await send(s.url, 'GET', `${IF}/interface=%E0`)).status, 400);
    t.deepEqual(s.toExpress, [
      `GET ${IF}/interface=eth0`,
      'GET /rests/data/ietf-interfaces:interfaces-state/interface=x?depth=2',
      `GET ${IF}/interface=%E0`,
    ]);
  } finally {
    await s.close();
  }
});

test("a use without a path takes every request; a hot swap brings the new generation's table", async (t) => {
  const s = await serve(
    generation([
      ({ routes }) => {
        routes.use((_req: unknown, _res: unknown, next: () => void) => next());
      },
    ]),
  );
  try {
    t.is((await send(s.url, 'GET', IF)).status, 404);
    t.deepEqual(s.toExpress, [`GET ${IF}`], 'a pathless use sees every request');
    s.swap(generation([() => undefined]));
    t.is((await send(s.url, 'GET', IF)).status, 404);
    t.deepEqual(s.toExpress, [`GET ${IF}`], 'the new generation adds no route: direct again');
    s.swap(
      generation([
        ({ routes }) => {
          routes.post('/rests/data/ietf-interfaces\\:interfaces', (_req: unknown, res: http.ServerResponse) => {
            res.end('posted');
          });
        },
      ]),
    );
    t.is((await send(s.url, 'GET', IF)).status, 404, 'a POST route lets the GET fall through to RESTCONF');
    t.deepEqual(s.toExpress, [`GET ${IF}`, `GET ${IF}`], 'a route on the path (any method) hands the request over');
    t.is(s.leases.released, s.leases.taken);
  } finally {
    await s.close();
  }
});

test('a generation whose route taps throw serves no plugin route and keeps the direct path', async (t) => {
  const s = await serve(
    generation([
      ({ routes }) => {
        routes.use('/rests/data', () => undefined);
        throw new Error('broken plugin');
      },
    ]),
  );
  try {
    t.is((await send(s.url, 'GET', IF)).status, 404);
    t.deepEqual(s.toExpress, []);
  } finally {
    await s.close();
  }
});
