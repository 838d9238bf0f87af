/**
 * Node leases among instances sharing one real PostgreSQL (database/node-leases.ts): an even spread,
 * no node owned twice, a clean leave handing its nodes over at once, and an instance cut off from the
 * database letting go of its nodes before the others take them. Short leases keep the test quick.
 * Skips loudly without PostgreSQL's server binaries.
 */
import { Pool } from 'pg';
import { NodeLeases, openDatabase, preferredOwner } from '../../src/database';
import { postgresTests } from './postgres-tests';

const pgTest = postgresTests('node-leases');

const NODES = Array.from({ length: 30 }, (_, i) => `node-${i}`);

/** An instance's leases on its own pool, recording when it gained and lost each node. */
async function member(
  url: string,
  instance: string,
  events: Array<{ at: number; instance: string; gained?: string[]; lost?: string[] }>,
  timing: { hearBorrows: boolean; leaseSeconds: number; renewSeconds: number } = { hearBorrows: false, leaseSeconds: 2, renewSeconds: 0.5 },
) {
  const pool = new Pool({ connectionString: url, max: 3 });
  pool.on('error', () => undefined);
  const leases = await NodeLeases.join(pool, {
    instance,
    url: `http://${instance}.invalid`,
    wanted: async () => NODES,
    gained: (nodeIds) => events.push({ at: performance.now(), instance, gained: [...nodeIds] }),
    lost: (nodeIds) => {
      events.push({ at: performance.now(), instance, lost: [...nodeIds] });
    },
    log: () => undefined,
    // (members cut off by ending their pool must not hear borrows: a LISTEN session held from it would block that)
    ...timing,
  });
  return { pool, leases };
}

/** Which instance holds each node, from the members' own view; fails on a node held by two. */
function holders(members: ReadonlyArray<{ name: string; leases: NodeLeases }>): Map<string, string> {
  const out = new Map<string, string>();
  for (const node of NODES)
    for (const m of members)
      if (m.leases.holds(node)) {
        if (out.has(node)) throw new Error(`${node} is held by ${out.get(node)} and ${m.name}`);
        out.set(node, m.name);
      }
  return out;
}

pgTest(
  'leases spread nodes evenly, never twice; a clean leave hands them over; a member cut off lets go before others take over',
  async (t) => {
    const url = await t.context.server.createDatabase('leases');
    const db = await openDatabase({ url, passwordFile: undefined }, () => undefined); // migrates
    await db.close();
    const events: Array<{ at: number; instance: string; gained?: string[]; lost?: string[] }> = [];
    const started = await Promise.all(['a', 'b', 'c'].map((name) => member(url, name, events).then((m) => ({ name, ...m }))));
    t.teardown(() => Promise.all(started.map((m) => m.pool.end().catch(() => undefined))).then(() => undefined));
    // a few renewals: each sees the others and takes its share
    for (let i = 0; i < 3; i++) await Promise.all(started.map((m) => m.leases.tick()));
    let held = holders(started);
    t.is(held.size, NODES.length, 'every node has an owner');
    for (const node of NODES) t.is(held.get(node), preferredOwner(node, ['a', 'b', 'c']));
    const counts = ['a', 'b', 'c'].map((n) => [...held.values()].filter((h) => h === n).length);
    t.true(Math.min(...counts) >= 5, `spread ${counts.join('/')}`);
    // a clean leave: the two others take its nodes at their next renewal
    const [a, b, c] = started as [(typeof started)[0], (typeof started)[0], (typeof started)[0]];
    await c.leases.leave();
    await Promise.all([a, b].map((m) => m.leases.tick()));
    held = holders([a, b]);
    t.is(held.size, NODES.length, 'the leaver’s nodes were taken at the next renewal');
    // b cut off from the database (its connections gone): it lets go by itself, and a takes over only after
    const bNodes = NODES.filter((n) => b.leases.holds(n));
    t.true(bNodes.length > 0);
    const cut = performance.now();
    await b.pool.end();
    const deadline = performance.now() + 8000;
    while (performance.now() < deadline && !bNodes.every((n) => a.leases.holds(n))) await new Promise((r) => setTimeout(r, 100));
    t.true(
      bNodes.every((n) => a.leases.holds(n)),
      'a took over every node of b',
    );
    const bLost = events.find((e) => e.instance === 'b' && e.lost !== undefined && e.at > cut);
    const aGained = events.find((e) => e.instance === 'a' && e.gained?.some((n) => bNodes.includes(n)) && e.at > cut);
    t.truthy(bLost, 'b let go of its nodes');
    t.truthy(aGained);
    t.true(bLost!.at < aGained!.at, 'b closed its sessions before a took them: never two owners');
    t.true(aGained!.at - cut < 5000, `taken over ${Math.round(aGained!.at - cut)} ms after b was cut off (lease 2 s)`);
    await a.leases.leave();
  },
);

pgTest("a member whose clock is an hour ahead takes no lease before it ends: every time is the database's", async (t) => {
  const url = await t.context.server.createDatabase('leases_clock');
  const db = await openDatabase({ url, passwordFile: undefined }, () => undefined);
  await db.close();
  const events: Array<{ at: number; instance: string; gained?: string[]; lost?: string[] }> = [];
  const holder = await member(url, 'holder', events);
  t.teardown(() => holder.pool.end().catch(() => undefined));
  await holder.leases.tick();
  t.is(NODES.filter((n) => holder.leases.holds(n)).length, NODES.length, 'alone, it holds every node');
  // this process's wall clock an hour ahead while the other member works: a lease's end is compared
  // with the database's now(), so the holder's unexpired leases stay its own
  const realNow = Date.now;
  Date.now = () => realNow() + 3_600_000;
  try {
    const ahead = await member(url, 'ahead', events);
    t.teardown(() => ahead.pool.end().catch(() => undefined));
    await ahead.leases.tick();
    t.is(NODES.filter((n) => ahead.leases.holds(n)).length, 0, 'the member an hour ahead took none of the leases the holder still has');
    // once the holder hands over what the newcomer should own (its next renewal), the newcomer takes those only
    await holder.leases.tick();
    await ahead.leases.tick();
    const taken = NODES.filter((n) => ahead.leases.holds(n));
    t.deepEqual(
      taken,
      NODES.filter((n) => preferredOwner(n, ['ahead', 'holder']) === 'ahead'),
    );
    t.false(
      taken.some((n) => holder.leases.holds(n)),
      'never both',
    );
    await ahead.leases.leave();
  } finally {
    Date.now = realNow;
  }
  await holder.leases.leave();
});

pgTest('a commit borrows another member’s node: asked, handed over at once (sessions closed first), pinned, then sent home', async (t) => {
  const url = await t.context.server.createDatabase('leases_borrow');
  const db = await openDatabase({ url, passwordFile: undefined }, () => undefined);
  await db.close();
  const events: Array<{ at: number; instance: string; gained?: string[]; lost?: string[] }> = [];
  // renewals far apart: a hand-over within a second comes from the borrow request, not a renewal
  const slow = { hearBorrows: true, leaseSeconds: 60, renewSeconds: 20 };
  const [a, b] = await Promise.all(['a', 'b'].map((name) => member(url, name, events, slow)));
  t.teardown(async () => {
    await Promise.all([a!, b!].map((m) => m.leases.leave().catch(() => undefined)));
    await Promise.all([a!, b!].map((m) => m.pool.end().catch(() => undefined)));
  });
  for (let i = 0; i < 2; i++) await Promise.all([a!, b!].map((m) => m.leases.tick()));
  const node = NODES.find((n) => a!.leases.holds(n))!;
  t.truthy(node, 'a owns a node');
  const asked = performance.now();
  t.deepEqual(await b!.leases.borrow([node]), [node]);
  t.true(performance.now() - asked < 5000, `borrowed in ${Math.round(performance.now() - asked)} ms (renewals every 20 s)`);
  const lost = events.find((e) => e.instance === 'a' && e.lost?.includes(node));
  const gained = events.find((e) => e.instance === 'b' && e.gained?.includes(node));
  t.true(lost !== undefined && gained !== undefined && lost.at < gained.at, 'a closed its session before b took the node');
  // pinned: neither b's renewal (b is not its preferred owner) nor a's takes it back during the commit
  await b!.leases.tick();
  await a!.leases.tick();
  t.true(b!.leases.holds(node) && !a!.leases.holds(node));
  // the commit ends: b hands it over at its next renewal, and a takes it home at its own
  b!.leases.unpin([node]);
  await b!.leases.tick();
  await a!.leases.tick();
  t.true(a!.leases.holds(node) && !b!.leases.holds(node), 'home again');
});
