/**
 * What a subscription request can be refused for, as the one fault type (fault/), so the RESTCONF
 * stream resource renders it like every other error: an unknown stream is 404 `invalid-value`, a
 * `start-time` on a stream without replay and a `stop-time` that is not after `start-time` are 400.
 * `code` lets a caller branch without reading messages.
 */
import { FaultError } from '../fault';

export type EventErrorCode = 'unknown-stream' | 'replay-unsupported' | 'bad-range';

export class EventError extends FaultError {
  constructor(
    readonly code: EventErrorCode,
    message: string,
  ) {
    super({ tag: 'invalid-value', message, type: 'protocol' }, { status: code === 'unknown-stream' ? 404 : 400 });
    this.name = 'EventError';
  }
}
