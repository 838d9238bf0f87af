/**
 * The ordered table of the routes other layers add under `/rests/data` and `/rests/operations`, ahead of
 * the core's own resources. The uniconfig layer adds its node configurations and transaction reads
 * (data views) and its managers' operations. The dispatcher asks the table once per request, after
 * `uri.parse` taps, and the first route that serves the path wins; a path no route serves is the core's
 * (the local datastores, mount points, local operations). Routes plugins add with `server.routes` follow
 * their plugin generation instead (plugin-routes.ts) and are consulted next, before the core's.
 *
 * A route's `match` is a test of the path's shape (and, for a transaction read, of its cookie), never
 * an attempt to serve it: what is served, and every fault of serving it, comes after the choice.
 */
import type { IncomingMessage } from 'node:http';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';
import type { DatastoreView } from './data-view';
import type { OperationSchema } from '../yang/schema';

/** A request on the way to a route: the path after its resource and what it was read with. */
export interface RoutedRequest {
  /** The service's context, with the key delimiter the request's path was read with. */
  readonly ctx: RestconfContext;
  readonly scope: PluginScope;
  readonly req: IncomingMessage;
  /** The encoded path after `/rests/data` or `/rests/operations` (`uri.parse` taps applied). */
  readonly raw: string;
  readonly keyDelimiter: string | null;
}

/** A route to data: the view holding what the path names. */
export interface DataRoute {
  readonly name: string;
  match(request: RoutedRequest): DatastoreView | undefined;
}

/** An operation a route serves: invoked by POST (the dispatcher answers OPTIONS and other methods). */
export interface OperationEndpoint {
  readonly operation: OperationSchema;
  invoke(request: RoutedRequest, res: import('node:http').ServerResponse): Promise<void>;
}

/** A route to operations. */
export interface OperationRoute {
  readonly name: string;
  match(request: RoutedRequest): OperationEndpoint | undefined;
}

export class RouteTable {
  private readonly data: DataRoute[] = [];
  private readonly operations: OperationRoute[] = [];

  /** Adds a route to data, after those added before it. */
  addData(route: DataRoute): this {
    this.data.push(route);
    return this;
  }

  /** Adds a route to operations, after those added before it. */
  addOperations(route: OperationRoute): this {
    this.operations.push(route);
    return this;
  }

  /** The view of the first route to data serving `request`, or undefined (the core's). */
  dataView(request: RoutedRequest): DatastoreView | undefined {
    for (const route of this.data) {
      const view = route.match(request);
      if (view !== undefined) return view;
    }
    return undefined;
  }

  /** The endpoint of the first route to operations serving `request`, or undefined (the core's). */
  operation(request: RoutedRequest): OperationEndpoint | undefined {
    for (const route of this.operations) {
      const endpoint = route.match(request);
      if (endpoint !== undefined) return endpoint;
    }
    return undefined;
  }
}
