/**
 * Metrics counted on hot paths in plain numbers and handed to the prom-client registry as metrics it
 * formats at scrape time, like its own: the HTTP requests' counter (`rosetta_http_requests_total`) and
 * duration histogram (`rosetta_http_request_duration_seconds`), and histograms without labels (the
 * journal's group commits, one or two per few writes). prom-client's Counter and
 * Histogram hash and check the label values of every observation, even through a child got from
 * labels() once: that cost a single-entry GET 4-5% of its service CPU, measured in one process with the
 * counting switched off and on in turn (bench/operability.ts); the profile put little of it in
 * prom-client's own functions, most went to the garbage it made. Here a request is two Map lookups on
 * the fixed label strings (http-labels.ts), one on its status, and a few additions.
 */
import type { Registry } from 'prom-client';

/** One method and route's counts: requests by status, and the duration histogram. */
class RouteCounts {
  readonly statuses = new Map<number, number>();
  readonly durations: Buckets;

  constructor(
    readonly method: string,
    readonly route: string,
    bounds: readonly number[],
  ) {
    this.durations = new Buckets(bounds);
  }

  observe(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    this.durations.observe(seconds);
  }
}

/** A value line of a metric as prom-client's registry formats it. */
interface MetricValue {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName?: string;
}

/** Observations of one histogram series: each bucket alone (the last past every bound, +Inf), sum, count. */
class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let b = 0;
    while (b < this.bounds.length && value > this.bounds[b]!) b++;
    this.counts[b]! += 1;
    this.sum += value;
    this.count += 1;
  }

  /** The series' lines: cumulative buckets, +Inf, sum and count, under `labels`. */
  lines(name: string, labels: Readonly<Record<string, string>>): MetricValue[] {
    const lines: MetricValue[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, i) => {
      cumulative += this.counts[i]!;
      lines.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${name}_bucket` });
    });
    lines.push({ labels: { ...labels, le: '+Inf' }, value: this.count, metricName: `${name}_bucket` });
    lines.push({ labels, value: this.sum, metricName: `${name}_sum` });
    lines.push({ labels, value: this.count, metricName: `${name}_count` });
    return lines;
  }
}

/** A histogram without labels. */
export class PlainHistogram {
  private readonly buckets: Buckets;

  constructor(registry: Registry, name: string, help: string, bounds: readonly number[]) {
    this.buckets = new Buckets(bounds);
    registry.registerMetric(metric(name, help, 'histogram', () => this.buckets.lines(name, {})));
  }

  observe(value: number): void {
    this.buckets.observe(value);
  }
}

/** The HTTP requests' counter and duration histogram (see the top of this file). */
export class HttpCounts {
  private readonly byMethod = new Map<string, Map<string, RouteCounts>>();

  constructor(
    registry: Registry,
    names: { readonly requests: string; readonly duration: string },
    help: { readonly requests: string; readonly duration: string },
    private readonly bounds: readonly number[],
  ) {
    const routes = () => [...this.byMethod.values()].flatMap((byRoute) => [...byRoute.values()]);
    registry.registerMetric(
      metric(names.requests, help.requests, 'counter', () =>
        routes().flatMap((r) =>
          [...r.statuses].map(([status, value]) => ({ labels: { method: r.method, route: r.route, status: String(status) }, value })),
        ),
      ),
    );
    registry.registerMetric(
      metric(names.duration, help.duration, 'histogram', () =>
        routes().flatMap((r) => r.durations.lines(names.duration, { method: r.method, route: r.route })),
      ),
    );
  }

  /** Counts one answered request. */
  count(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.byMethod.get(method);
    if (byRoute === undefined) {
      byRoute = new Map();
      this.byMethod.set(method, byRoute);
    }
    let counts = byRoute.get(route);
    if (counts === undefined) {
      counts = new RouteCounts(method, route, this.bounds);
      byRoute.set(route, counts);
    }
    counts.observe(status, seconds);
  }
}

/** A metric the registry formats: its name, help, type, and its value lines read at each scrape. */
function metric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
    reset: () => undefined,
  } as unknown as Parameters<Registry['registerMetric']>[0];
}
