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

/** A Logger writing JSON lines (see the top of this file). */
export function createJsonLogger(options: JsonLoggerOptions): Required<Logger> {
  const destination = options.destination ?? process.stdout;
  const terminal = (destination as Writable & { isTTY?: boolean }).isTTY === true;
  // stdout to a file or a pipe: pino's own asynchronous writer (lines written while a write is under
  // way go out together with the next; pino flushes it when the process exits) instead of one
  // synchronous write per line, which cost an access line about 5 us of the event loop
  const target = terminal
    ? pretty({ destination, sync: true, translateTime: 'SYS:HH:MM:ss.l' })
    : destination === process.stdout
      ? pino.destination({ dest: 1, sync: false })
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
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
