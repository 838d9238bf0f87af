/**
 * The jobs board as the config-false `rosetta-jobs:jobs` list (core/yang/rosetta-jobs@2026-11-27.yang),
 * served by a `data.readState` tap like any module's state, so that `GET /rests/data/rosetta-jobs:jobs`
 * (and a single `job=<id>`, `fields`, `depth`, ...) answer as every other read does.
 */
import type { JsonObject, RosettaHooks } from '../hooks';
import type { JobBoard, JobView } from './jobs';

export const JOBS_MODULE = 'rosetta-jobs';

/** RFC 3339 without the milliseconds, as the module's yang:date-and-time leaves are written elsewhere. */
function dateAndTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function jobJson(v: JobView): JsonObject {
  const entry: Record<string, string | number> = { id: v.id, kind: v.kind };
  if (v.nodeId !== undefined) entry['node-id'] = v.nodeId;
  entry['state'] = v.state;
  entry['started'] = dateAndTime(v.started);
  if (v.finished !== undefined) entry['finished'] = dateAndTime(v.finished);
  entry['total'] = v.total;
  entry['done'] = v.done;
  entry['failed'] = v.failed;
  if (v.error !== undefined) entry['error'] = v.error;
  return entry;
}

/** Taps `data.readState` for the jobs module with the board's jobs (nothing when there are none). */
export function tapJobsState(hooks: RosettaHooks, board: JobBoard): void {
  hooks.data.readState.for(JOBS_MODULE).tapPromise('core:jobs', async (state) => {
    const jobs = board.list();
    if (jobs.length === 0) return state;
    return { ...state, [`${JOBS_MODULE}:jobs`]: { job: jobs.map(jobJson) } };
  });
}
