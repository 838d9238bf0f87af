/**
 * Build-and-commit transactions (docs/devices.md#transactions): what `create-transaction` opens and the
 * `UNICONFIGTXID` cookie names. A transaction holds, per node it has looked at, its own copy of the
 * intended configuration, the actual configuration and the node's version as they were when it first
 * looked (the base a commit checks against), and whether it changed the node. Nothing reaches the
 * stores or devices before commit. Transactions live in memory: a restart drops open ones (what was
 * committed is in the stores). Idle transactions expire (a timer per transaction, reset on each use).
 */
import type { Logger } from '../logger';
import { randomUUID } from 'node:crypto';
import type { DataRoot } from '../data/tree';
import { Elsewhere } from '../fault';
import { RestconfError } from '../restconf/errors';
import type { SchemaContext } from '../yang/schema';
import type { NodeVersion } from './node-store';

/** The cookie that names a transaction. */
export const COOKIE_NAME = 'UNICONFIGTXID';
/** Idle time after which a transaction is dropped, when create-transaction names none (seconds). */
export const DEFAULT_IDLE_SECONDS = 900;
/** Longest idle time a client may ask for (seconds). */
export const MAX_IDLE_SECONDS = 86_400;
/** Most transactions open at once: each holds copies of the nodes it touched, so clients cannot open them without bound. */
export const MAX_OPEN_TRANSACTIONS = 1_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** 422 `invalid-transaction`: the cookie names no open transaction, or is not a transaction id at all. */
export function invalidTransaction(message: string): RestconfError {
  return new RestconfError(422, { type: 'application', tag: 'invalid-transaction', message });
}

/** One node as a transaction sees it. */
export interface NodeView {
  readonly nodeId: string;
  /** The device schema the trees are in (fixed for the transaction's life). */
  readonly schema: SchemaContext;
  intended: DataRoot;
  /** The actual configuration when the transaction first looked at the node. */
  readonly baseActual: DataRoot;
  /** The node's version then (a commit in between makes this transaction's commit 409). */
  readonly baseVersion: NodeVersion;
  /** Whether the transaction wrote the node (commit with no target-nodes commits these). */
  written: boolean;
}

export class Transaction {
  readonly views = new Map<string, NodeView>();
  closed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly idleMs: number,
    private readonly onExpire: (t: Transaction) => void,
  ) {
    this.touch();
  }

  /** Restarts the idle timer (each request using the transaction calls it). */
  touch(): void {
    if (this.closed) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onExpire(this), this.idleMs);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Nodes the transaction changed, in a stable order. */
  writtenNodes(): string[] {
    return [...this.views.values()]
      .filter((v) => v.written)
      .map((v) => v.nodeId)
      .sort();
  }
}

/** The open transactions of a service. */
/**
 * Where the transactions other instances opened are found, when several share one database
 * (database/transaction-owners.ts): a request naming one is forwarded to its creator.
 */
export interface SharedTransactions {
  opened(id: string): Promise<void>;
  ended(id: string): void;
  locate(id: string): Promise<string | undefined>;
}

export class TransactionRegistry {
  private readonly open = new Map<string, Transaction>();

  constructor(
    private readonly log: Pick<Logger, 'info'>,
    private readonly shared?: SharedTransactions,
  ) {}

  /** Makes transaction `tx` findable by the other instances (when shared): await it before naming `tx` to the client. */
  async announce(tx: Transaction): Promise<void> {
    try {
      await this.shared?.opened(tx.id);
    } catch (error) {
      this.drop(tx);
      throw error;
    }
  }

  /** Opens a transaction idle-expiring after `idleSeconds`. */
  create(idleSeconds = DEFAULT_IDLE_SECONDS): Transaction {
    if (this.open.size >= MAX_OPEN_TRANSACTIONS) {
      throw RestconfError.of(
        'resource-denied',
        `${MAX_OPEN_TRANSACTIONS} transactions are open; commit or close one first (idle ones expire)`,
        { type: 'application' },
      );
    }
    const tx = new Transaction(randomUUID(), idleSeconds * 1000, (t) => {
      if (this.open.get(t.id) === t) {
        this.drop(t);
        this.log.info(`transaction ${t.id} expired after ${idleSeconds} s idle`);
      }
    });
    this.open.set(tx.id, tx);
    return tx;
  }

  /** Closes and forgets a transaction (commit, close-transaction, expiry). */
  drop(tx: Transaction): void {
    tx.close();
    if (this.open.delete(tx.id)) this.shared?.ended(tx.id);
  }

  /** How many are open now. */
  get size(): number {
    return this.open.size;
  }

  /**
   * The transaction a request's `Cookie` header names: undefined without the cookie; 422 when the
   * cookie is malformed, repeated, or names no open transaction.
   */
  fromCookieHeader(header: string | string[] | undefined): Transaction | undefined {
    const id = transactionCookie(header);
    if (id === undefined) return undefined;
    const tx = this.open.get(id.toLowerCase());
    const notOpen = () => invalidTransaction(`transaction '${id}' is not open (unknown, closed, committed or expired)`);
    const shared = this.shared;
    // another instance may have opened it: the request goes there (restconf/forward.ts)
    if (tx === undefined && shared !== undefined)
      throw new Elsewhere(`transaction '${id}'`, () => shared.locate(id.toLowerCase()), notOpen);
    if (tx === undefined) throw notOpen();
    tx.touch();
    return tx;
  }

  closeAll(): void {
    for (const tx of [...this.open.values()]) this.drop(tx);
  }
}

/** The UNICONFIGTXID value of a Cookie header (undefined when absent); 422 when it is not one well-formed UUID. */
export function transactionCookie(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(';') : header;
  if (text.length > 8192) throw invalidTransaction('the Cookie header is too long to hold a transaction id');
  const values: string[] = [];
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== COOKIE_NAME) continue;
    values.push(
      part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  if (values.length === 0) return undefined;
  if (values.length > 1) throw invalidTransaction(`the Cookie header names ${values.length} ${COOKIE_NAME} values; send one`);
  const id = values[0]!;
  if (!UUID.test(id)) throw invalidTransaction(`${COOKIE_NAME} '${id.slice(0, 64)}' is not a transaction id (a UUID)`);
  return id;
}
