/**
 * RFC 5277 notifications of a simulated NETCONF device: the sessions that asked with
 * `create-subscription`, and a notification written to each of them. Apart from the simulator's
 * datastore operations (netconf-simulator.ts), which a notification does not touch: a test emits one when
 * it wants, with an event its device model defines (a `notification` statement), since the receiving
 * service reads it with the device's schema.
 */
import { NOTIFICATION_NS } from '../netconf/messages';

/** The subscribed sessions of one device. */
export class NotificationSubscribers {
  /** Each subscribed session's way to send a message. */
  private readonly sessions = new Set<(message: string) => void>();

  /** A session subscribed; the answer ends its subscription (call it when the session closes). */
  subscribe(send: (message: string) => void): () => void {
    this.sessions.add(send);
    return () => this.sessions.delete(send);
  }

  /** Sessions subscribed now. */
  get count(): number {
    return this.sessions.size;
  }

  /**
   * Sends `<notification>` with `event` (one element of the device model, with its `xmlns`) to every
   * subscribed session; answers how many it went to.
   */
  emit(event: string, eventTime: Date = new Date()): number {
    const message = `<notification xmlns="${NOTIFICATION_NS}"><eventTime>${eventTime.toISOString()}</eventTime>${event}</notification>`;
    for (const send of this.sessions) send(message);
    return this.sessions.size;
  }
}
