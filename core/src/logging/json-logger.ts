/**
 * The service's own log sink: pino, one JSON object a line (`level` as its name, `time` in ms since the
 * epoch, `msg`, the caller's fields, and `reqId` when the line is caused by a request,
 * request-context.ts). When the destination is a terminal the same lines are written readable, through
 * pino-pretty. pino because it is fast enough to leave on and writes lines every log tool reads.
 * What this returns is a plain `Logger` (logger.ts): no caller knows the sink is pino.
 */
import type { Writable } from 'node:stream';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { LogFields, Logger } from '../logger';
import { currentRequestId } from './request-context';

/** The levels the configuration may name (`silent` writes nothing). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface JsonLoggerOptions {
  readonly level: LogLevel;
  /** Where lines go (default stdout); a terminal gets them readable. */
  readonly destination?: Writable;
}

/**
 * Field names that would hold a secret if a caller ever passed one: written as `[secret]`. No caller
 * should; this is the net under that rule, not the rule.
 */
const SECRET_FIELDS = ['password', 'authorization', 'token', 'secret', 'key'];

/** `fields` with any secret-named member written as `[secret]` (a copy only when there is one). */
function censored(fields: LogFields): LogFields {
  if (!SECRET_FIELDS.some((name) => name in fields)) return fields;
  const copy: Record<string, string | number | boolean | undefined> = { ...fields };
  for (const name of SECRET_FIELDS) if (name in copy) copy[name] = '[secret]';
  return copy;
}

/** The least a write of log lines to stdout gathers, and the longest a line waits for it (ms). */
const LOG_WRITE_BYTES = 4096;
const LOG_FLUSH_MS = 100;

/** One request's access line (restconf/request-log.ts): what it was and how it ended. */
export interface AccessLine {
  readonly reqId: string;
  readonly method: string;
  readonly route: string;
  /** 0: the connection closed before the answer was sent. */
  readonly status: number;
  readonly durationMs: number;
  readonly nodeId: string | undefined;
}

/** The access line's message, the same for every sink. */
export function accessMessage(line: AccessLine): string {
  return `${line.method} ${line.route} ${line.status === 0 ? 'aborted' : line.status} in ${line.durationMs} ms`;
}

/** The levels an access line is written at (restconf/request-log.ts picks one per request). */
export type AccessLevel = 'debug' | 'info';

/** Writes access lines; the JSON logger's own writer, or any logger's `info`. */
export type AccessWriter = (line: AccessLine, level: AccessLevel) => void;

/** The access writer of each logger made by createJsonLogger. */
const accessWriters = new WeakMap<Logger, AccessWriter>();

/**
 * How `log` writes access lines: the JSON logger's fast writer when it made `log`, else an info line
 * with the same fields (a Logger has no debug level: its debug access lines are not written). pino
 * took about 3.5 us of service CPU for an access line (its mixin, level formatter and generic
 * serializer), this writer under 1 us for the same bytes.
 */
export function accessWriterOf(log: Logger): AccessWriter {
  return (
    accessWriters.get(log) ??
    ((line, level) => {
      if (level !== 'info') return;
      log.info(accessMessage(line), {
        reqId: line.reqId,
        method: line.method,
        route: line.route,
        status: line.status,
        durationMs: line.durationMs,
        nodeId: line.nodeId,
      });
    })
  );
}

/**
 * An access line as pino writes a line with these fields (level, time, the fields, msg; a field that
 * is undefined left out). Method and route come from fixed sets and the id is a safe token
 * (request-context.ts); the node id comes from the client's path and is escaped.
 */
function accessJson(line: AccessLine, level: AccessLevel): string {
  const node = line.nodeId === undefined ? '' : `,"nodeId":${JSON.stringify(line.nodeId)}`;
  return `{"level":"${level}","time":${Date.now()},"reqId":"${line.reqId}","method":"${line.method}","route":"${line.route}","status":${line.status},"durationMs":${line.durationMs}${node},"msg":"${accessMessage(line)}"}\n`;
}

/** The service's Logger, whose least level can change while it runs (a configuration reload). */
export type JsonLogger = Required<Logger> & { setLevel(level: LogLevel): void };

/** A Logger writing JSON lines (see the top of this file). */
export function createJsonLogger(options: JsonLoggerOptions): JsonLogger {
  const destination = options.destination ?? process.stdout;
  const terminal = (destination as Writable & { isTTY?: boolean }).isTTY === true;
  // stdout to a file or a pipe: pino's own asynchronous writer, which pino flushes when the process
  // exits, instead of one synchronous write per line (about 5 us of the event loop an access line).
  // Lines are gathered into writes of at least 4 KB, or whatever there is every 100 ms: a write per
  // line or two went through libuv's thread pool under load, a thread handoff and a wake-up each, which
  // on a 2-core machine cost the requests more than the lines themselves.
  const target = terminal
    ? pretty({ destination, sync: true, translateTime: 'SYS:HH:MM:ss.l' })
    : destination === process.stdout
      ? pino.destination({ dest: 1, sync: false, minLength: LOG_WRITE_BYTES, periodicFlush: LOG_FLUSH_MS })
      : destination;
  const sink = pino(
    {
      level: options.level,
      base: undefined,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const reqId = currentRequestId();
        return reqId === undefined ? {} : { reqId };
      },
    },
    target,
  );
  const write = (level: 'info' | 'warn' | 'error') => (message: string, fields?: LogFields) => {
    if (fields === undefined) sink[level](message);
    else sink[level](censored(fields), message);
  };
  const log: JsonLogger = {
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: (level) => {
      sink.level = level;
    },
  };
  accessWriters.set(
    log,
    terminal
      ? // on a terminal the lines go through pino-pretty, which reads pino's own lines
        (line, level) => sink[level]({ ...line }, accessMessage(line))
      : (line, level) => {
          if (sink.isLevelEnabled(level)) target.write(accessJson(line, level));
        },
  );
  return log;
}
