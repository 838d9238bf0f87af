/**
 * The jobs board as a client reads it (`GET /rests/data/rosetta-jobs:jobs`), for the tests of the
 * board through the service.
 */
import type { TestService } from '../../src/service/test-service';

export const JOBS = '/rests/data/rosetta-jobs:jobs';

/** One job as the board answers it. */
export interface JobEntry {
  id: number;
  kind: string;
  state: string;
  total: number;
  done: number;
  failed: number;
  'node-id'?: string;
  started: string;
  finished?: string;
  error?: string;
}

/** Every job on `service`'s board (none: the board answers 404). */
export async function readJobs(service: TestService): Promise<JobEntry[]> {
  const r = await service.request('GET', JOBS);
  if (r.status === 404) return [];
  if (r.status !== 200) throw new Error(`${JOBS} answered ${r.status}: ${r.text}`);
  return r.json['rosetta-jobs:jobs'].job;
}
