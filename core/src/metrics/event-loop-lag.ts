/**
 * The event loop's lag, sampled by a timer of the service's own: every SAMPLE_MS a timer is set, and
 * how much later than asked it fires is one sample. The scrape reads the last sample and the minimum,
 * maximum, mean, standard deviation and percentiles of the samples since the previous scrape, under the names of
 * prom-client's default metric (`nodejs_eventloop_lag_*_seconds`), so dashboards made for Node services
 * read them.
 *
 * Not prom-client's own: it enables perf_hooks.monitorEventLoopDelay, and with it on a single-entry
 * GET answered 9% fewer requests a second on a 2-core machine (ROSETTA_BENCH=operability: 0.91 of the
 * throughput with metrics off, 1.03 without it; its 10 ms resolution or 100 ms made no difference).
 * A timer of our own ten times a second costs nothing measurable and sees the same stalls, to within
 * its period.
 */
import { performance } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

const SAMPLE_MS = 100;
/** Samples kept between scrapes (at one a SAMPLE_MS, the last 102 s); older ones are dropped. */
const KEPT = 1024;

const QUANTILES = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p99', 0.99],
] as const;

export class EventLoopLag {
  private timer: NodeJS.Timeout | undefined;
  private readonly samples = new Float64Array(KEPT);
  private count = 0;
  private last = 0;

  constructor(registry: Registry, prefix: string) {
    const registers = [registry];
    const sampler = this;
    // Registered first, so its collect (run as a scrape starts on each metric in turn) reads the window
    // and sets the others before they are read.
    new Gauge({
      name: `${prefix}nodejs_eventloop_lag_seconds`,
      help: 'Lag of the event loop: how late the last sample timer (one every 100 ms) fired.',
      registers,
      collect(this: Gauge) {
        this.set(sampler.last);
        const window = sampler.takeWindow();
        if (window.length === 0) return;
        min.set(window[0]!);
        max.set(window[window.length - 1]!);
        const average = window.reduce((a, b) => a + b, 0) / window.length;
        mean.set(average);
        stddev.set(Math.sqrt(window.reduce((a, b) => a + (b - average) ** 2, 0) / window.length));
        for (const [q, g] of quantiles) g.set(window[Math.min(window.length - 1, Math.floor(q * window.length))]!);
      },
    });
    const gauge = (suffix: string, help: string) => new Gauge({ name: `${prefix}nodejs_eventloop_lag_${suffix}`, help, registers });
    const min = gauge('min_seconds', 'The least event loop lag sampled since the previous scrape.');
    const max = gauge('max_seconds', 'The greatest event loop lag sampled since the previous scrape.');
    const mean = gauge('mean_seconds', 'The mean event loop lag sampled since the previous scrape.');
    const stddev = gauge('stddev_seconds', 'The standard deviation of the event loop lag sampled since the previous scrape.');
    const quantiles = QUANTILES.map(
      ([name, q]) => [q, gauge(`${name}_seconds`, `The ${name} of the event loop lag sampled since the previous scrape.`)] as const,
    );
    this.schedule();
  }

  /** Samples again after a stop (metrics switched back on); sampling already, nothing changes. */
  start(): void {
    if (this.timer === undefined) this.schedule();
  }

  /** Stops sampling (the service is stopping, or its metrics are switched off). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    const asked = performance.now();
    this.timer = setTimeout(() => {
      this.last = Math.max(0, performance.now() - asked - SAMPLE_MS) / 1000;
      this.samples[this.count % KEPT] = this.last;
      this.count += 1;
      this.schedule();
    }, SAMPLE_MS);
    this.timer.unref();
  }

  /** The samples since the previous call, sorted. */
  private takeWindow(): Float64Array {
    const window = this.samples.slice(0, Math.min(this.count, KEPT)).sort();
    this.count = 0;
    return window;
  }
}
