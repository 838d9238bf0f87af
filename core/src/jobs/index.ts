/**
 * Long work's progress: the board of running and recently finished jobs that bulk node operations,
 * syncs, device schema compiles and plugins' schema downloads report to (jobs.ts), and its face as the `rosetta-jobs` state (state.ts); /metrics reads the board too.
 */
export {
  FINISHED_KEPT,
  FINISHED_KEPT_MS,
  Job,
  JobBoard,
  type JobBoardOptions,
  type JobHandle,
  type JobKind,
  type JobStart,
  type JobStarter,
  type JobState,
  type JobView,
} from './jobs';
export { JOBS_MODULE, tapJobsState } from './state';
