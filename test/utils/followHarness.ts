// A follower under test, as a client sees it: `flashnode follow` of anvil (through a proxy the
// test can make lag) and of a flashblocks stream the test writes (AnvilSequencer), with what
// the rule tests ask of it: its follow events from /metrics, waits with deadlines, and the
// check that `pending` answers what `latest` answers.
import assert from "node:assert/strict";
import type { WebSocket } from "ws";
import type { Logger } from "../../src/log/logger.ts";
import type { RunningNode } from "../../src/node/plan.ts";
import { AnvilSequencer } from "./anvilFlashblocks.ts";
import { pollUntil } from "./devChain.ts";
import { call, tempDatadir } from "./fixtures.ts";
import { flashblockMessage, type SourceOptions } from "./flashblockSource.ts";
import { startFollowNode } from "./nodes.ts";
import { silentLogger, testFrontendOptions } from "./options.ts";
import { type RpcProxy, startRpcProxy } from "./rpcProxy.ts";

export type HarnessOptions = {
  readonly label: string;
  readonly streamReadTimeoutMs?: number;
  readonly pollMs?: number;
  readonly source?: SourceOptions;
  readonly logger?: Logger;
  /** Keep the stream talking from the start (see heartbeat). */
  readonly heartbeatMs?: number;
};

/** Every wait here fails after this long, saying what it waited for. */
export const WAIT_MS = 15_000;

/** A flashblock of block 1, long sealed: the follower ignores it ("superseded"). */
const HEARTBEAT = flashblockMessage(1, 1, { transactions: [] });

export class FollowHarness {
  /** The stream connections the follower opened, in order (the last is the live one). */
  readonly connections: WebSocket[] = [];
  /** With a source whose autoPong is off: whether its connections answer pings. */
  answerPings = true;
  #watching = true;
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  private constructor(
    readonly seq: AnvilSequencer,
    readonly proxy: RpcProxy,
    readonly follower: RunningNode,
  ) {}

  static async start(o: HarnessOptions): Promise<FollowHarness> {
    const seq = await AnvilSequencer.start({
      anvilArgs: ["--hardfork", "osaka"],
      ...(o.source === undefined ? {} : { source: o.source }),
    });
    await seq.deployToken(1_000_000n);
    const proxy = await startRpcProxy(seq.anvil.url);
    const follower = await startFollowNode({
      datadir: tempDatadir(o.label),
      rpc: proxy.url,
      flashblocks: seq.source.url,
      frontend: testFrontendOptions(),
      logger: o.logger ?? silentLogger,
      hardfork: "osaka",
      pollMs: o.pollMs ?? 100,
      streamReadTimeoutMs: o.streamReadTimeoutMs ?? 60_000,
    });
    const h = new FollowHarness(seq, proxy, follower);
    h.#watch();
    h.heartbeat(o.heartbeatMs);
    // One block followed past F: blocks at or below F are the upstream's, rendered by it.
    await seq.anvil.rpc("evm_mine");
    const head = (await seq.head()).number;
    await h.until(
      "the follower reaches anvil's head",
      () => h.rpc("eth_blockNumber"),
      (n) => n === head,
    );
    await h.until(
      "the stream is connected",
      async () => h.connections.length,
      (n) => n > 0,
    );
    return h;
  }

  /** Collects the follower's stream connections as they come. */
  #watch(): void {
    const next = (): void => {
      void this.seq.source.connection().then((ws) => {
        if (!this.#watching) return;
        this.connections.push(ws);
        ws.on("ping", (data) => {
          if (this.answerPings) ws.pong(data);
        });
        next();
      });
    };
    next();
  }

  /**
   * Every `everyMs`, a frame the follower ignores on the live connection (a stream that is
   * never quiet, as Base's is not), or none (undefined).
   */
  heartbeat(everyMs: number | undefined): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    if (everyMs === undefined) return;
    this.#heartbeat = setInterval(() => {
      const ws = this.connections.at(-1);
      if (ws !== undefined && ws.readyState === ws.OPEN) ws.send(HEARTBEAT);
    }, everyMs);
  }

  /** The live connection (the follower's newest). */
  get ws(): WebSocket {
    const ws = this.connections.at(-1);
    assert.ok(ws !== undefined && ws.readyState === ws.OPEN, "the stream has an open connection");
    return ws;
  }

  /**
   * Sends on the live connection, once there is one: on a loaded machine the follower may be
   * between two connections (a read deadline passed while it was not scheduled) when a test sends.
   */
  readonly send = async (message: string): Promise<void> => {
    const ws = await this.until(
      "an open stream connection",
      async () => this.connections.at(-1),
      (c) => c !== undefined && c.readyState === c.OPEN,
    );
    ws!.send(message);
  };

  rpc(method: string, params: unknown[] = []): Promise<unknown> {
    return call(this.follower.dedicatedUrl, method, params);
  }

  /** Polls `read` until `done`, failing after WAIT_MS with `what` and the last value. */
  async until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
    try {
      return await pollUntil(read, done, WAIT_MS, 25);
    } catch (e) {
      throw new Error(`waiting for ${what}: ${(e as Error).message}`);
    }
  }

  /** flashnode_follow_events_total by event, as /metrics says it. */
  async events(): Promise<Record<string, number>> {
    const text = await (await fetch(`${this.follower.url}metrics`)).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^flashnode_follow_events_total\{event="(\w+)"\} (\d+)$/gm))
      out[m[1]!] = Number(m[2]);
    return out;
  }

  /** Every series of /metrics by its name and labels as written (`name{label="v"}`). */
  async metrics(): Promise<Map<string, number>> {
    const text = await (await fetch(`${this.follower.url}metrics`)).text();
    const out = new Map<string, number>();
    for (const m of text.matchAll(/^(\w+(?:\{[^}]*\})?) (\S+)$/gm)) out.set(m[1]!, Number(m[2]));
    return out;
  }

  /** Waits until `event` has been counted `count` times more than in `before`. */
  async event(before: Record<string, number>, event: string, count = 1): Promise<void> {
    const want = (before[event] ?? 0) + count;
    await this.until(
      `${count} more ${event} event(s) at /metrics`,
      async () => (await this.events())[event] ?? 0,
      (n) => n >= want,
    );
  }

  async pendingReceiptHashes(): Promise<string[]> {
    const rs = (await this.rpc("eth_getBlockReceipts", ["pending"])) as {
      transactionHash: string;
    }[];
    return rs.map((r) => r.transactionHash);
  }

  /** Waits until pending's receipts are exactly `hashes`. */
  async pendingHolds(what: string, hashes: readonly string[]): Promise<void> {
    await this.until(
      `pending to hold ${what}`,
      () => this.pendingReceiptHashes(),
      (got) => got.length === hashes.length && got.every((h, i) => h === hashes[i]),
    );
  }

  /** The token balance of `holder` at `tag`. */
  async balance(holder: string, tag: "pending" | "latest"): Promise<bigint> {
    const slot = `0x${BigInt(holder).toString(16).padStart(64, "0")}`;
    return BigInt((await this.rpc("eth_getStorageAt", [this.seq.token, slot, tag])) as string);
  }

  /**
   * Nothing is pre-confirmed: `pending` answers what `latest` does, block, receipts and the
   * holders' balances alike, never null or an error.
   */
  async assertPendingIsLatest(holders: readonly string[], why: string): Promise<void> {
    const pending = await this.rpc("eth_getBlockByNumber", ["pending", false]);
    assert.notEqual(pending, null, `${why}: pending is a block`);
    assert.deepEqual(pending, await this.rpc("eth_getBlockByNumber", ["latest", false]), why);
    assert.deepEqual(
      await this.rpc("eth_getBlockReceipts", ["pending"]),
      await this.rpc("eth_getBlockReceipts", ["latest"]),
      `${why}: receipts`,
    );
    for (const h of holders)
      assert.equal(
        await this.balance(h, "pending"),
        await this.balance(h, "latest"),
        `${why}: ${h}`,
      );
  }

  /** anvil mined up to `number`, and the follower has it as its head. */
  async headIs(number: number): Promise<void> {
    const id = `0x${number.toString(16)}`;
    await this.until(
      `the follower's head at ${number}`,
      () => this.rpc("eth_blockNumber"),
      (n) => n === id,
    );
  }

  async close(): Promise<void> {
    this.#watching = false;
    this.heartbeat(undefined);
    await this.follower?.close();
    await this.proxy?.close();
    await this.seq?.close();
  }
}
