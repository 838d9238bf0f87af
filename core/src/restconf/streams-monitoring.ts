/**
 * The discovery of event streams (RFC 8040 §9.3): operational `ietf-restconf-monitoring:restconf-state`,
 * computed on each read by a `data.readState` tap (served like any module's state, so `/streams`, a
 * single stream, `fields` and `depth` work as on other data). Each stream the hub defines is listed with
 * its description, whether it keeps a replay log, the log's creation time and (rosetta-restconf-monitoring)
 * its aged time, and an `access` entry per encoding whose `location` is an absolute URL on this service,
 * built from the scheme and Host the request was sent to (streams.ts serves it).
 *
 * `capabilities` lists what the service really supports (RFC 8040 §9.1.1): the basic with-defaults mode
 * (`explicit`: data as stored), and the `depth`, `fields`, `filter`, `replay` and `with-defaults`
 * parameters.
 */
import type { JsonObject, RosettaHooks } from '../hooks';
import { streamPath, type StreamHub } from './streams';

export const MONITORING_MODULE = 'ietf-restconf-monitoring';
const AGED_TIME = 'rosetta-restconf-monitoring:replay-log-aged-time';

const CAPABILITIES: readonly string[] = [
  'urn:ietf:params:restconf:capability:defaults:1.0?basic-mode=explicit',
  'urn:ietf:params:restconf:capability:depth:1.0',
  'urn:ietf:params:restconf:capability:fields:1.0',
  'urn:ietf:params:restconf:capability:filter:1.0',
  'urn:ietf:params:restconf:capability:replay:1.0',
  'urn:ietf:params:restconf:capability:with-defaults:1.0',
];

/** The RFC 7951 JSON of `restconf-state`; `origin` is `scheme://host[:port]` of the locations. */
export function restconfState(hub: StreamHub, origin: string): JsonObject {
  const replay = hub.replayState();
  const stream = hub.streams().map((def) => {
    const entry: JsonObject = { name: def.name, description: def.description, 'replay-support': def.replay };
    if (def.replay) {
      entry['replay-log-creation-time'] = replay.creationTime;
      if (replay.agedTime !== undefined) entry[AGED_TIME] = replay.agedTime;
    }
    entry['access'] = (['json', 'xml'] as const).map((encoding) => ({ encoding, location: `${origin}${streamPath(def.name, encoding)}` }));
    return entry;
  });
  return {
    [`${MONITORING_MODULE}:restconf-state`]: {
      capabilities: { capability: [...CAPABILITIES] },
      ...(stream.length > 0 ? { streams: { stream } } : {}),
    },
  };
}

/** Taps `data.readState` for the monitoring module with the hub's streams. */
export function tapStreamDiscovery(hooks: RosettaHooks, hub: StreamHub): void {
  hooks.data.readState
    .for(MONITORING_MODULE)
    .tapPromise('core:restconf-monitoring', async (json, read) => ({ ...json, ...restconfState(hub, read.origin ?? 'http://localhost') }));
}
