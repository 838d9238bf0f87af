/**
 * The one producer of data-change events: the Config datastore's commit path and the uniconfig layer
 * hand it each committed change once, after it is durable and in commit order, and it publishes one
 * event on the `data-change` stream and one on each path-scoped subscription's stream that the change
 * touches (only the edits in its scope). Every publish is started before the first is awaited, so the
 * hub numbers them in the order the changes were committed; the returned promise resolves once all are
 * in the replay log, which the writer awaits before its 2xx: a client that saw the 2xx can rely on
 * the event being there. With a database, a Config write's events are inserted in the write's own
 * transaction instead (`within`): one commit and one flush for both.
 */
import { inScope } from './change-scope';
import { type DataChange, dataChangeContent } from './data-change';
import { DATA_CHANGE_STREAM } from './streams';
import type { ChangeStreams, DataChangeSubscription, DataChangeSubscriptions } from './subscriptions';
import type { EventInput } from './types';

/** Whether a subscription watches the configuration a change is of. */
function watches(sub: DataChangeSubscription, change: DataChange): boolean {
  if (sub.nodeId === undefined) return change.nodeId === undefined && change.datastore === 'config';
  return sub.nodeId === change.nodeId && sub.topologyId === change.topologyId;
}

export class DataChangeFeed {
  constructor(
    private readonly streams: ChangeStreams,
    private readonly subscriptions?: DataChangeSubscriptions,
  ) {}

  /** Publishes `change` (nothing for a change without edits); resolves once every event is durable. */
  async publish(change: DataChange): Promise<void> {
    await Promise.all(this.eventsOf(change, true).map(([stream, input]) => this.streams.publish(stream, input)));
  }

  /**
   * Publishes `change`, which another instance sharing the database made, on this instance's path-scoped
   * subscriptions only: its `data-change` event reaches every instance from its maker, through the
   * database (events/relayed-streams.ts).
   */
  async publishScoped(change: DataChange): Promise<void> {
    await Promise.all(this.eventsOf(change, false).map(([stream, input]) => this.streams.publish(stream, input)));
  }

  /**
   * With a database: the events of `change`, inserted in the transaction of the write that stores it
   * (they commit with it, in its one flush: `PreparedWrite.committedWith`), and whether that ran; a
   * write that stored nothing publishes them itself. Undefined without a database.
   */
  within(change: DataChange): { readonly sql: string; taken(): void; ran(): boolean } | undefined {
    const events = this.eventsOf(change, true);
    if (this.streams.sqlWithin === undefined || events.length === 0) return undefined;
    let taken = false;
    return {
      sql: this.streams.sqlWithin(events),
      taken: () => {
        taken = true;
      },
      ran: () => taken,
    };
  }

  private eventsOf(change: DataChange, all: boolean): Array<[string, EventInput]> {
    if (change.edits.length === 0) return [];
    const events: Array<[string, EventInput]> = all ? [[DATA_CHANGE_STREAM, this.input(change, change.edits)]] : [];
    if (this.subscriptions !== undefined && this.subscriptions.size > 0) {
      for (const sub of this.subscriptions.all()) {
        if (!watches(sub, change)) continue;
        const edits = change.edits.filter((e) => inScope(e.path, sub.path, sub.scope));
        if (edits.length > 0) events.push([sub.id, this.input(change, edits)]);
      }
    }
    return events;
  }

  private input(change: DataChange, edits: DataChange['edits']): EventInput {
    return { ...(change.nodeId !== undefined ? { nodeId: change.nodeId } : {}), content: dataChangeContent(change, edits) };
  }
}
