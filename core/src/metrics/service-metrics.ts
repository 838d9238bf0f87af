/**
 * The metrics of one service, in a prom-client Registry of its own (not prom-client's global one:
 * tests and embedders run several services in one process, each counting only its own traffic).
 * Counters and histograms are moved where the work happens (the HTTP listener, the uniconfig commit,
 * the plugin host's reloads); what is a state rather than an event (device sessions, the plugin
 * generation) is read from its owner when Prometheus scrapes, through the sources given to
 * {@link ServiceMetrics.observe}, so the hot path keeps no book of it. Every name starts `rosetta_`
 * and no label takes a value from a request's path or a node id (docs/operations.md lists them all).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EventLoopLag } from './event-loop-lag';
import { HttpCounts, PlainHistogram } from './plain-metrics';
import type { RouteLabel } from './http-labels';

/** What the scrape reads from the service's parts (each optional: a part not running has none). */
export interface MetricSources {
  /** Every installed device's southbound protocol and connection status now. */
  readonly sessions?: () => Iterable<{ readonly protocol: string; readonly status: string }>;
  /** The plugin generation serving now, and each configured plugin's state. */
  readonly plugins?: () => { readonly generation: number; readonly states: Iterable<string> };
  /** Running jobs (jobs/) by kind, and the items they have left. */
  readonly jobs?: () => Iterable<[kind: string, running: { readonly jobs: number; readonly remaining: number }]>;
}

/** Seconds: from a fast local GET (well under a millisecond) to a commit across a slow fleet. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds of one journal write + fsync. */
const FSYNC_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
/** Least time between the starts of two generations of the exposition (see ServiceMetrics.scrape). */
export const SCRAPE_INTERVAL_MS = 1000;
/** Records one group commit made durable. */
const RECORD_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024];

/**
 * prom-client's default metrics (process CPU, memory, file descriptors, heap spaces, handles, Node's
 * version), each its own module in prom-client's `lib/metrics`, but two:
 * - its GC duration histogram keeps a PerformanceObserver on every collection, which cost a single-entry
 *   GET 3-8% of its service CPU (alternated over three processes each);
 * - its event-loop lag enables perf_hooks.monitorEventLoopDelay, which cost the same GET 9% of its
 *   throughput: event-loop-lag.ts samples the lag with a timer of its own under the same names.
 * The list is prom-client 15's `collectDefaultMetrics` less `gc` and `eventLoopLag`; a test compares
 * the names with prom-client's.
 */
const DEFAULT_METRICS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
] as const;

type DefaultMetric = (registry: Registry, config: { readonly prefix: string; readonly eventLoopMonitoringPrecision: number }) => void;

function registerDefaultMetrics(registry: Registry): void {
  for (const name of DEFAULT_METRICS) {
    const register = require(`prom-client/lib/metrics/${name}`) as DefaultMetric;
    register(registry, { prefix: 'rosetta_', eventLoopMonitoringPrecision: 10 });
  }
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly http: HttpCounts;
  private readonly uniconfigCommits: Counter<'outcome'>;
  private readonly pluginReloads: Counter<'outcome'>;
  private readonly journalFsync: PlainHistogram;
  private readonly journalRecords: PlainHistogram;
  private readonly deviceDuration: Histogram<'protocol' | 'operation' | 'outcome'>;
  private readonly eventLoopLag: EventLoopLag;
  private sources: MetricSources = {};
  /** The exposition being generated now (or waiting to be), which scrapes arriving meanwhile share. */
  private scraping: Promise<{ text: string; body: Buffer }> | undefined;
  /** When the last generation started (performance.now()). */
  private lastGeneration = Number.NEGATIVE_INFINITY;
  private counting = true;

  constructor() {
    const registers = [this.registry];
    registerDefaultMetrics(this.registry);
    this.eventLoopLag = new EventLoopLag(this.registry, 'rosetta_');
    this.http = new HttpCounts(
      this.registry,
      { requests: 'rosetta_http_requests_total', duration: 'rosetta_http_request_duration_seconds' },
      {
        requests: 'HTTP requests answered, by method, route template and status code.',
        duration: 'Time from a request arriving to its response closing, by method and route template.',
      },
      LATENCY_BUCKETS,
    );
    this.uniconfigCommits = new Counter({
      name: 'rosetta_uniconfig_commits_total',
      help: 'Uniconfig commits and checked commits, by outcome (success or failure).',
      labelNames: ['outcome'],
      registers,
    });
    this.pluginReloads = new Counter({
      name: 'rosetta_plugin_reloads_total',
      help: 'Plugin reloads that changed the serving generation, by outcome (ok; error: some plugin was refused and left out or kept its old version).',
      labelNames: ['outcome'],
      registers,
    });
    this.journalFsync = new PlainHistogram(
      this.registry,
      'rosetta_journal_commit_duration_seconds',
      'Time of one group commit of the Config datastore journal (write + fsync).',
      FSYNC_BUCKETS,
    );
    this.journalRecords = new PlainHistogram(
      this.registry,
      'rosetta_journal_commit_records',
      'Records one group commit of the Config datastore journal made durable.',
      RECORD_BUCKETS,
    );
    this.deviceDuration = new Histogram({
      name: 'rosetta_device_request_duration_seconds',
      help: 'Southbound calls to devices (read, write, invoke), by protocol, kind and outcome (success or failure).',
      labelNames: ['protocol', 'operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const sources = () => this.sources;
    new Gauge({
      name: 'rosetta_device_sessions',
      help: 'Installed devices by southbound protocol and connection status.',
      labelNames: ['protocol', 'status'],
      registers,
      collect() {
        this.reset();
        const read = sources().sessions;
        if (read === undefined) return;
        for (const { protocol, status } of read()) this.inc({ protocol, status });
      },
    });
    new Gauge({
      name: 'rosetta_plugin_generation',
      help: 'The number of the plugin generation serving requests (grows by one per swap).',
      registers,
      collect() {
        const read = sources().plugins;
        this.set(read === undefined ? 0 : read().generation);
      },
    });
    // the running jobs by kind, read from the board once per gauge at each scrape
    const jobGauge = (name: string, help: string, value: (running: { readonly jobs: number; readonly remaining: number }) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['kind'],
        registers,
        collect() {
          this.reset();
          for (const [kind, running] of sources().jobs?.() ?? []) this.set({ kind }, value(running));
        },
      });
    jobGauge(
      'rosetta_jobs_running',
      'Long work running now (bulk installs and uninstalls, syncs from the network), by kind.',
      (r) => r.jobs,
    );
    jobGauge(
      'rosetta_job_items_remaining',
      'Items (nodes, or modules of a schema download or compile) the running jobs of a kind have not finished yet.',
      (r) => r.remaining,
    );
    new Gauge({
      name: 'rosetta_plugins',
      help: 'Configured plugins by state (loaded, failed, disabled, ...).',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        const read = sources().plugins;
        if (read === undefined) return;
        for (const state of read().states) this.inc({ state });
      },
    });
  }

  /** Sets what the scrape reads (called once the parts exist; later calls add to it). */
  observe(sources: MetricSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  /** Stops what samples on a timer (the service is stopping). */
  stop(): void {
    this.eventLoopLag.stop();
  }

  /**
   * Whether the metrics count and are served: a configuration reload that switches `metrics.enabled`
   * off (cli/reload-on-hangup.ts) pauses them, and every counting method returns at once, the lag
   * sampler stops and `/metrics` is not served, as if the service had started without them; switched
   * on again, the counts go on from where they stopped.
   */
  get recording(): boolean {
    return this.counting;
  }

  set recording(on: boolean) {
    if (on === this.counting) return;
    this.counting = on;
    if (on) this.eventLoopLag.start();
    else this.eventLoopLag.stop();
  }

  /** Counts one answered request, by its labels (http-labels.ts): see plain-metrics.ts for why not prom-client's own. */
  countRequest(method: string, route: RouteLabel, status: number, seconds: number): void {
    if (!this.counting) return;
    this.http.count(method, route, status, seconds);
  }

  /** Counts a finished uniconfig commit. */
  countCommit(ok: boolean): void {
    if (!this.counting) return;
    this.uniconfigCommits.labels(ok ? 'success' : 'failure').inc();
  }

  /** Counts a plugin reload that changed the serving generation. */
  countReload(ok: boolean): void {
    if (!this.counting) return;
    this.pluginReloads.labels(ok ? 'ok' : 'error').inc();
  }

  /** Records one group commit of the journal: its write + fsync time and how many records it carried. */
  journalCommitted(seconds: number, records: number): void {
    if (!this.counting) return;
    this.journalFsync.observe(seconds);
    this.journalRecords.observe(records);
  }

  /** Records one southbound call (mount/device-calls.ts). */
  deviceCall(protocol: string, operation: string, seconds: number, ok: boolean): void {
    if (!this.counting) return;
    this.deviceDuration.labels(protocol, operation, ok ? 'success' : 'failure').observe(seconds);
  }

  /**
   * The exposition text and its content type. Scrapes that arrive while one is being generated share
   * its text instead of each walking the registry and reading /proc again, and a generation starts at
   * most every {@link SCRAPE_INTERVAL_MS}: a scrape arriving sooner waits for the next one, which it
   * shares with every scrape arriving meanwhile. Each scrape still sees counts from after it arrived
   * (or from a generation running when it came), but clients scraping without pause are answered a
   * once a second each, not as fast as the loop can serve them: fifty of them otherwise took
   * all but 2/52 of the loop's turns from two API clients beside them.
   */
  async scrape(): Promise<{ text: string; body: Buffer; contentType: string }> {
    if (this.scraping === undefined) {
      const wait = this.lastGeneration + SCRAPE_INTERVAL_MS - performance.now();
      const generating = (wait > 0 ? delay(wait) : Promise.resolve())
        .then(() => {
          this.lastGeneration = performance.now();
          return this.registry.metrics();
        })
        // encoded once for every scrape sharing it, not once per answer
        .then((text) => ({ text, body: Buffer.from(text) }))
        .finally(() => {
          if (this.scraping === generating) this.scraping = undefined;
        });
      this.scraping = generating;
    }
    return { ...(await this.scraping), contentType: this.registry.contentType };
  }
}
