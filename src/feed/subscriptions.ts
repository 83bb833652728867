// eth_subscribe / eth_unsubscribe for one WebSocket connection, with geth's ids, errors and
// notification shape (rpc/subscription.go, rpc/handler.go, eth/filters/api.go), plus Base's
// `newFlashblocks`. Each subscription holds one feed listener, removed on unsubscribe or close.

import { randomBytes } from "node:crypto";
import type { MethodDef, RequestContext } from "../rpc/method.ts";
import { defineMethod, optional, required } from "../rpc/method.ts";
import { parseSubscriptionId } from "../rpc/params.ts";
import { goQuote } from "../rpc/wire.ts";
import { InvalidParamsError, RpcError, ServerError } from "../services/errors.ts";
import type { LogFilter } from "./logFilter.ts";
import { matchLog, parseLogFilter } from "./logFilter.ts";
import type { ChainFeed, Unsubscribe } from "./types.ts";

export const SUBSCRIPTION_KINDS = [
  "newHeads",
  "logs",
  "newFlashblocks",
  "newPendingTransactions",
] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

/** Notifications held per subscription until its id has been sent (geth Notifier buffer). */
export const MAX_INACTIVE_NOTIFICATIONS = 1024;

/** geth subscriptionNotFoundError: an unknown subscription kind. */
export class SubscriptionNotFoundError extends RpcError {
  static readonly code: number = -32601;
  constructor(namespace: string, name: string) {
    super(
      SubscriptionNotFoundError.code,
      `no ${goQuote(name)} subscription in ${namespace} namespace`,
    );
  }
}

/**
 * geth rpc.NewID: 16 random bytes as a hex quantity (leading zeros trimmed, "0x0" for zero).
 * geth draws them from a seeded math/rand; crypto randomness gives the same format.
 */
export function newSubscriptionId(): string {
  const hex = randomBytes(16).toString("hex");
  let i = 0;
  while (i < hex.length && hex.charCodeAt(i) === 0x30) i++;
  return i === hex.length ? "0x0" : `0x${hex.slice(i)}`;
}

type Subscription = {
  readonly id: string;
  readonly kind: SubscriptionKind;
  /** `{"jsonrpc":…,"params":{"subscription":"0x…","result":` — the result and `}}` follow. */
  readonly head: string;
  /** Notifications waiting for activation; undefined once active. */
  buffer: string[] | undefined;
  stop: Unsubscribe;
  closed: boolean;
};

export type SubscriptionSetOptions = {
  readonly feed: ChainFeed;
  /** Writes one message to the connection. */
  readonly send: (text: string) => void;
  /** Called when a subscription's pre-activation buffer overflows (the client is dropped). */
  readonly onOverflow?: () => void;
  readonly maxInactive?: number;
};

/** The subscriptions of one connection. */
export class SubscriptionSet {
  readonly #feed: ChainFeed;
  readonly #send: (text: string) => void;
  readonly #onOverflow: () => void;
  readonly #maxInactive: number;
  readonly #subs = new Map<string, Subscription>();
  /** Subscriptions created while handling a message, keyed by that message's context. */
  readonly #pending = new Map<RequestContext, Subscription[]>();
  #closed = false;

  constructor(opts: SubscriptionSetOptions) {
    this.#feed = opts.feed;
    this.#send = opts.send;
    this.#onOverflow = opts.onOverflow ?? (() => {});
    this.#maxInactive = opts.maxInactive ?? MAX_INACTIVE_NOTIFICATIONS;
  }

  get size(): number {
    return this.#subs.size;
  }

  /**
   * Creates a subscription. It stays inactive (notifications buffered) until `activate(ctx)`,
   * called once the response carrying its id has been written, as geth does.
   */
  /**
   * `filter`: a `logs` subscription's; `full`: a `newPendingTransactions` one sends whole
   * transactions rather than hashes.
   */
  subscribe(
    kind: SubscriptionKind,
    filter: LogFilter | undefined,
    ctx: RequestContext,
    full = false,
  ): string {
    if (this.#closed) throw new ServerError("connection closed");
    let id = newSubscriptionId();
    while (this.#subs.has(id)) id = newSubscriptionId();
    const sub: Subscription = {
      id,
      kind,
      head: `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":`,
      buffer: [],
      stop: () => {},
      closed: false,
    };
    sub.stop = this.#listen(sub, filter, full);
    this.#subs.set(id, sub);
    const list = this.#pending.get(ctx);
    if (list === undefined) this.#pending.set(ctx, [sub]);
    else list.push(sub);
    return id;
  }

  /** geth handler.unsubscribe: true, or "subscription not found". */
  unsubscribe(id: string): true {
    const sub = this.#subs.get(id);
    if (sub === undefined) throw new ServerError("subscription not found");
    this.#end(sub);
    return true;
  }

  /** Sends what subscriptions created under `ctx` buffered, then lets them send directly. */
  activate(ctx: RequestContext): void {
    const list = this.#pending.get(ctx);
    if (list === undefined) return;
    this.#pending.delete(ctx);
    for (const sub of list) {
      const buffered = sub.buffer;
      sub.buffer = undefined;
      if (sub.closed || buffered === undefined) continue;
      for (const text of buffered) this.#send(text);
    }
  }

  /** Ends every subscription (connection closed); later subscribes fail. */
  closeAll(): void {
    this.#closed = true;
    for (const sub of this.#subs.values()) this.#end(sub);
    this.#pending.clear();
  }

  #end(sub: Subscription): void {
    if (sub.closed) return;
    sub.closed = true;
    sub.buffer = undefined;
    sub.stop();
    this.#subs.delete(sub.id);
  }

  #notify(sub: Subscription, resultJson: string): void {
    if (sub.closed) return;
    const text = `${sub.head}${resultJson}}}`;
    if (sub.buffer === undefined) {
      this.#send(text);
      return;
    }
    if (sub.buffer.length >= this.#maxInactive) {
      this.#onOverflow();
      return;
    }
    sub.buffer.push(text);
  }

  #listen(sub: Subscription, filter: LogFilter | undefined, full: boolean): Unsubscribe {
    switch (sub.kind) {
      case "newHeads":
        return this.#feed.onNewHead((ev) => this.#notify(sub, ev.json));
      case "newFlashblocks":
        return this.#feed.onFlashblock((ev) => this.#notify(sub, ev.json));
      case "newPendingTransactions":
        // Each transaction as it is pre-confirmed (it is then in the pending block): its hash,
        // or (full) the transaction as a pool renders it, as geth and anvil send them.
        return this.#feed.onPreconfirmed((ev) => {
          const sent = ev.sent;
          if (sent === undefined) return;
          for (const text of full ? sent.json() : sent.hashes.map((h) => `"${h}"`)) {
            if (sub.closed) return;
            this.#notify(sub, text);
          }
        });
      case "logs":
        // One notification per matching log, in block order, as geth.
        return this.#feed.onLogs((logs) => {
          for (const log of logs) {
            if (sub.closed) return;
            if (filter === undefined || matchLog(filter, log)) this.#notify(sub, log.json);
          }
        });
    }
  }
}

function isKind(name: string): name is SubscriptionKind {
  return (SUBSCRIPTION_KINDS as readonly string[]).includes(name);
}

const passThrough = (raw: unknown): unknown => raw;

/** The methods a WebSocket connection adds to the registry (a --policy may name them). */
export const SUBSCRIPTION_METHODS = ["eth_subscribe", "eth_unsubscribe"] as const;

/**
 * `eth_subscribe` and `eth_unsubscribe` where nothing is ever notified (an archive that does not
 * move): a subscription is refused saying `why`, as geth refuses one where notifications are
 * not supported; no id is ever one to unsubscribe.
 */
export function refusedSubscriptionMethods(
  why: string,
): Record<(typeof SUBSCRIPTION_METHODS)[number], MethodDef> {
  return {
    eth_subscribe: defineMethod({
      params: [optional(passThrough), optional(passThrough)],
      handler: () => {
        throw new RpcError(-32601, `notifications not supported: ${why}`);
      },
    }),
    eth_unsubscribe: defineMethod({
      params: [required(parseSubscriptionId)],
      handler: () => {
        throw new ServerError("subscription not found");
      },
    }),
  };
}

/**
 * `eth_subscribe` and `eth_unsubscribe` bound to one connection's subscriptions, for a
 * dispatcher created with `subscriptions: true`.
 */
export function subscriptionMethods(
  subs: SubscriptionSet,
): Record<(typeof SUBSCRIPTION_METHODS)[number], MethodDef> {
  return {
    eth_subscribe: defineMethod({
      // Raw values: the argument list depends on the kind (geth parseSubscriptionName).
      params: [optional(passThrough), optional(passThrough)],
      handler: ([name, arg], ctx) => {
        if (typeof name !== "string") {
          throw new InvalidParamsError("expected subscription name as first argument");
        }
        if (!isKind(name)) throw new SubscriptionNotFoundError("eth", name);
        if (name === "logs") return subs.subscribe(name, parseLogFilter(arg), ctx);
        if (name === "newPendingTransactions") {
          // geth's and anvil's optional fullTx flag.
          if (arg !== undefined && arg !== null && typeof arg !== "boolean")
            throw new InvalidParamsError("Expected boolean parameter for newPendingTransactions");
          return subs.subscribe(name, undefined, ctx, arg === true);
        }
        if (arg !== undefined) throw new InvalidParamsError("too many arguments, want at most 1");
        return subs.subscribe(name, undefined, ctx);
      },
    }),
    eth_unsubscribe: defineMethod({
      params: [required(parseSubscriptionId)],
      handler: ([id]) => subs.unsubscribe(id),
    }),
  };
}
