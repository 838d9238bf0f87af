/**
 * The service's Prometheus metrics: one registry per service (service-metrics.ts) and the bounded label
 * values of HTTP requests (http-labels.ts). The service creates a ServiceMetrics and hands it to the
 * parts that count; restconf/operability.ts serves it at `GET /metrics`.
 */
export { methodLabel, routeLabel, ROUTES, type RouteLabel } from './http-labels';
export { SCRAPE_INTERVAL_MS, ServiceMetrics, type MetricSources } from './service-metrics';
