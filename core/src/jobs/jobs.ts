/**
 * Long work the service does on a client's behalf (a batch of installs or uninstalls, a sync of many
 * nodes, a device's schema download or compile), as jobs a client and an operator can follow while
 * they run: each job counts its items done and failed against its total, and writes the progress lines
 * of the log (`installing 340/2000`), about every twentieth of the job and at least every few seconds,
 * so every kind of long work reports in the same words and at the same pace.
 *
 * The board keeps the running jobs and the most recently finished ones, bounded both ways (at most
 * {@link FINISHED_KEPT} finished jobs, none older than {@link FINISHED_KEPT_MS}), so a client that
 * started a job can read how it ended without the list growing with the service's uptime. It is served
 * as the config-false `rosetta-jobs:jobs` list (core/yang/rosetta-jobs@2026-11-27.yang) and as the
 * running-job gauges of /metrics (state.ts renders the list); the board itself imports nothing of the
 * core, so any layer can report to it.
 */

/** The kinds of long work, as the `kind` leaf names them. */
export type JobKind =
  | 'install-multiple-nodes'
  | 'uninstall-multiple-nodes'
  | 'sync-from-network'
  /** A NETCONF device's modules fetched with get-schema (an item is a module); a plugin reports it. */
  | 'schema-download'
  /** A device's modules compiled into its schema (an item is a module). */
  | 'schema-compile';

/** How a job stands: `failed` when the job as a whole failed or any of its items did. */
export type JobState = 'running' | 'succeeded' | 'failed';

/** What a reader sees of one job. */
export interface JobView {
  readonly id: number;
  readonly kind: JobKind;
  /** The node the job works on, when it works on one. */
  readonly nodeId?: string;
  readonly started: Date;
  readonly finished?: Date;
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly state: JobState;
  /** Why the job, or its first failed item, failed. */
  readonly error?: string;
}

/** Finished jobs kept for reading at most (the oldest go first). */
export const FINISHED_KEPT = 100;
/** Finished jobs are kept at most this long (ms): an hour. */
export const FINISHED_KEPT_MS = 3_600_000;
/** A progress line at least every this many items: a twentieth of the job. */
const PROGRESS_STEPS = 20;

export interface JobBoardOptions {
  /** Where progress lines go (the service's log). */
  readonly log: (line: string) => void;
  /** The longest time between two progress lines of a running job (ms, default 5000). */
  readonly progressMs?: number;
}

/** What starts a job: its kind, its size, and the words of its progress lines. */
export interface JobStart {
  readonly kind: JobKind;
  readonly total: number;
  /** The verbs of its log lines: `installing` while it runs, `installed` when it ends. */
  readonly doing: string;
  readonly done: string;
  /** Said after the first line's count (`, at most 32 at once`). */
  readonly detail?: string;
  readonly nodeId?: string;
  /** What an item is, as the log lines count them (default `node(s)`). */
  readonly items?: string;
}

/** What the worker of a job holds: it tells the job of each item as it ends, and of its own end. */
export interface JobHandle {
  /** One item ended; `error` says why when it failed. */
  item(error?: string): void;
  /** The job ended; `error` when it failed as a whole (its items may not all have run). */
  finish(error?: string): void;
}

/** Where jobs are started: the board, as the core hands it to plugins (`PluginApi.jobs`). */
export interface JobStarter {
  start(start: JobStart): JobHandle;
}

/** One running job, told of each item as it ends and of its own end. */
export class Job implements JobHandle {
  private doneCount = 0;
  private failedCount = 0;
  private reported = 0;
  private endedAt: Date | undefined;
  private firstError: string | undefined;
  private jobFailed = false;
  private readonly step: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly id: number,
    private readonly start: JobStart,
    private readonly log: (line: string) => void,
    progressMs: number,
    private readonly ended: (job: Job) => void,
    readonly started = new Date(),
  ) {
    this.step = Math.max(1, Math.ceil(start.total / PROGRESS_STEPS));
    this.timer = setInterval(() => this.report(), progressMs);
    this.timer.unref();
    if (this.talks) log(`${start.doing} ${start.total} ${this.items}${this.ofNode}${start.detail ?? ''}`);
  }

  private get items(): string {
    return this.start.items ?? 'node(s)';
  }

  private get ofNode(): string {
    return this.start.nodeId !== undefined ? ` of ${this.start.nodeId}` : '';
  }

  /** A job of one item says nothing in the log: its request's own lines tell it. */
  private get talks(): boolean {
    return this.start.total > 1;
  }

  /** One item ended; `error` says why when it failed. */
  item(error?: string): void {
    if (this.endedAt !== undefined) return;
    this.doneCount++;
    if (error !== undefined) {
      this.failedCount++;
      this.firstError ??= error;
    }
    if (this.doneCount % this.step === 0 && this.doneCount < this.start.total) this.report();
  }

  /** The job ended; `error` when it failed as a whole (its items may not all have run). */
  finish(error?: string): void {
    if (this.endedAt !== undefined) return;
    clearInterval(this.timer);
    this.endedAt = new Date();
    if (error !== undefined) {
      this.jobFailed = true;
      this.firstError = error;
    }
    if (this.talks) {
      const seconds = ((this.endedAt.getTime() - this.started.getTime()) / 1000).toFixed(1);
      const { done, total } = this.start;
      const why =
        error !== undefined
          ? `; it failed: ${error}`
          : this.failedCount > 0
            ? `; ${this.failedCount} failed, the first: ${this.firstError}`
            : '';
      this.log(`${done} ${this.doneCount - this.failedCount}/${total} ${this.items}${this.ofNode} in ${seconds} s${why}`);
    }
    this.ended(this);
  }

  get running(): boolean {
    return this.endedAt === undefined;
  }

  get kind(): JobKind {
    return this.start.kind;
  }

  view(): JobView {
    const state: JobState = this.endedAt === undefined ? 'running' : this.jobFailed || this.failedCount > 0 ? 'failed' : 'succeeded';
    return {
      id: this.id,
      kind: this.start.kind,
      ...(this.start.nodeId !== undefined ? { nodeId: this.start.nodeId } : {}),
      started: this.started,
      ...(this.endedAt !== undefined ? { finished: this.endedAt } : {}),
      total: this.start.total,
      done: this.doneCount,
      failed: this.failedCount,
      state,
      ...(this.firstError !== undefined && state === 'failed' ? { error: this.firstError } : {}),
    };
  }

  /** A progress line, when something ended since the last one. */
  private report(): void {
    if (this.reported === this.doneCount || this.endedAt !== undefined || !this.talks) return;
    this.reported = this.doneCount;
    const failed = this.failedCount > 0 ? ` (${this.failedCount} failed)` : '';
    this.log(`${this.start.doing} ${this.doneCount}/${this.start.total}${this.ofNode}${failed}`);
  }
}

/** The service's jobs: running ones and the recently finished, bounded (see the top of this file). */
export class JobBoard implements JobStarter {
  private nextId = 1;
  private readonly running = new Map<number, Job>();
  /** Finished jobs, oldest first. */
  private readonly finished: Job[] = [];

  constructor(private readonly options: JobBoardOptions) {}

  start(start: JobStart): Job {
    const job = new Job(this.nextId++, start, this.options.log, this.options.progressMs ?? 5000, (j) => this.ended(j));
    this.running.set(job.id, job);
    return job;
  }

  /**
   * Runs `work` as a job, finishing it with the error `work` throws (rethrown). `work` reports its
   * items through the job it is given.
   */
  async run<T>(start: JobStart, work: (job: Job) => Promise<T>): Promise<T> {
    const job = this.start(start);
    try {
      const result = await work(job);
      job.finish();
      return result;
    } catch (e) {
      job.finish(e instanceof Error ? e.message : String(e));
      throw e;
    }
  }

  /** Every job kept, by id (the order they started in). */
  list(now = Date.now()): JobView[] {
    this.prune(now);
    return [...this.finished, ...this.running.values()].map((j) => j.view()).sort((a, b) => a.id - b.id);
  }

  /** Running jobs and the items they have left, by kind (the /metrics gauges). */
  runningByKind(): Map<JobKind, { jobs: number; remaining: number }> {
    const out = new Map<JobKind, { jobs: number; remaining: number }>();
    for (const job of this.running.values()) {
      const v = job.view();
      const entry = out.get(v.kind) ?? { jobs: 0, remaining: 0 };
      entry.jobs++;
      entry.remaining += Math.max(0, v.total - v.done);
      out.set(v.kind, entry);
    }
    return out;
  }

  private ended(job: Job): void {
    this.running.delete(job.id);
    this.finished.push(job);
    this.prune(Date.now());
  }

  private prune(now: number): void {
    let drop = Math.max(0, this.finished.length - FINISHED_KEPT);
    while (drop < this.finished.length && now - (this.finished[drop]!.view().finished?.getTime() ?? now) > FINISHED_KEPT_MS) drop++;
    if (drop > 0) this.finished.splice(0, drop);
  }
}
