import { blockRlpFromJson } from "../chain/blockJson.ts";
import { listRoot } from "../chain/listTrie.ts";
import { blockFromRlp } from "../chain/op/blockTx.ts";
import { BlockRejectedError } from "../exec/blockExecutor.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import { blockId, parseData, type RpcBlock } from "../upstream/json.ts";
import { equalBytes, hexToBytes } from "../util/hex.ts";
import { dryRunBlockOf } from "./discovery.ts";
import { emptyPending } from "./emptyPending.ts";
import type { Flashblock } from "./flashblock.ts";
import { baseForgotten, eventFields, type FollowerDeps, ROUTINE } from "./followerDeps.ts";
import { canonicalBlock, FlashblockRejectedError, PendingReplay } from "./pendingReplay.ts";
import { Sequencing } from "./sequencing.ts";
import type { SequencingResult } from "./sequencingTypes.ts";

export class Follower {
  private readonly replay: PendingReplay;
  private readonly sequencing: Sequencing;
  private queue: Promise<unknown> = Promise.resolve();
  /** Catch-ups, one at a time (their upstream round trips are outside the queue). */
  private catchUps: Promise<unknown> = Promise.resolve();
  private position = 0;
  /** The upstream's newest block as last heard. */
  private upstreamHead: number | undefined;
  private stoppedFor: string | undefined;
  /** Shutting down: queued work is skipped, failures are not reported. */
  private closing = false;
  /** The head whose next block was last found not to build on it (warned once per head). */
  private inconsistentAt: number | undefined;
  private readonly now: () => number;
  /** Canonical blocks imported: how many, their gas, the time their import took (ms). */
  readonly imported = { blocks: 0, fromReplay: 0, gas: 0n, ms: 0 };
  /** When each flashblock arrived (epoch ms), until it is applied or dropped. */
  private readonly arrivals = new WeakMap<Flashblock, number>();

  constructor(private readonly deps: FollowerDeps) {
    this.replay = new PendingReplay(deps.executor, deps.common, deps.prefetch);
    this.sequencing = new Sequencing(deps.sequencing ?? {});
    this.now = deps.now ?? (() => performance.timeOrigin + performance.now());
  }

  /** Blocks behind the upstream's newest (for /readyz and metrics). */
  lag(): number {
    const head = this.deps.store.headNumber() ?? 0;
    return Math.max(0, (this.upstreamHead ?? head) - head);
  }

  get stopped(): string | undefined {
    return this.stoppedFor;
  }

  /** Starts from the archive's head: the sequencing rules learn it, pending is empty. */
  async start(): Promise<void> {
    await this.serial(async () => {
      const head = this.head();
      this.apply(
        this.sequencing.canonical(
          { ...head, parentHash: new Uint8Array(32), transactionHashes: [] },
          this.now(),
        ),
      );
      this.publish(emptyPending(this.deps.store, this.deps.common, head.number));
    });
  }

  /** Whether the node is shutting down (a failure then is the shutdown's, not news). */
  get closed(): boolean {
    return this.closing;
  }

  /** A flashblock from the stream; `arrivedAt`: when it came (epoch ms). */
  flashblock(fb: Flashblock, arrivedAt = this.now()): Promise<void> {
    if (this.halted) return Promise.resolve();
    this.arrivals.set(fb, arrivedAt);
    return this.serial(async () => {
      if (!this.halted) await this.act(this.sequencing.flashblock(fb, arrivedAt));
    });
  }

  /** Time passes (stale pending, expired early flashblocks). */
  tick(): Promise<void> {
    return this.serial(async () => {
      if (!this.halted) await this.act(this.sequencing.tick(this.now()));
    });
  }

  /**
   * Shutting down: what is queued is skipped; resolves once the task running has ended (close
   * the upstream client first, so that one waiting on it ends at once).
   */
  close(): Promise<void> {
    this.closing = true;
    return Promise.all([this.queue, this.catchUps]).then(() => undefined);
  }

  private get halted(): boolean {
    return this.closing || this.stoppedFor !== undefined;
  }

  /**
   * Catches up with the upstream: its newest block, then every block up to it, in order, with
   * reorgs unwound. Returns how many blocks were imported. The upstream is asked outside the
   * queue and what it answered is applied inside it, so a flashblock that arrives meanwhile is
   * applied, not held behind a round trip. `sealed`: a block the stream showed sealed (a
   * flashblock of its child came): it is asked for beside the tip, sparing a round trip, and
   * still imported only once the tip says it is there.
   */
  catchUp(sealed?: number): Promise<number> {
    const run = this.catchUps.then(() => this.catchUpNow(sealed));
    this.catchUps = run.catch(() => undefined);
    return run;
  }

  private async catchUpNow(sealed: number | undefined): Promise<number> {
    if (this.halted) return 0;
    const { client, store } = this.deps;
    // Only a catch-up moves the head, and one runs at a time: the head read here holds until
    // this one imports or unwinds (inside the queue).
    const from = this.head().number + 1;
    let early =
      sealed !== undefined && sealed >= from
        ? client.blockByNumber(BigInt(from), true).catch(() => null)
        : undefined;
    let tip = Number(await client.blockNumber());
    await this.serial(async () => {
      if (this.halted) return;
      this.upstreamHead = tip;
      await this.act(this.sequencing.tipSeen(tip));
    });
    if (this.halted) return 0;
    if (tip < this.head().number) {
      // The upstream went back: a node of a pool lagging, or its chain replaced by a shorter
      // one (a reset, a reorg): told apart by its block at its tip.
      const theirs = await client.blockByNumber(BigInt(tip), false);
      const ours = store.canonicalHash(tip);
      if (theirs !== null && ours !== undefined && !equalBytes(hexToBytes(theirs.hash), ours))
        await this.unwind(tip);
      return 0;
    }
    let imported = 0;
    while (!this.halted) {
      const next = this.head().number + 1;
      // Past the tip only after an import: a block sealed meanwhile (a busy chain, one back
      // from an outage) is taken now, not after another round trip for the tip.
      if (next > tip && imported === 0) break;
      const asked = next === from ? await early : null;
      early = undefined;
      const json = asked ?? (await client.blockByNumber(BigInt(next), true));
      if (json === null) break;
      const step = await this.serial(async () => {
        if (this.halted) return "stop";
        if (next > tip) {
          tip = next;
          this.upstreamHead = tip;
          await this.act(this.sequencing.tipSeen(tip));
        }
        // Re-checked now that the flashblocks applied meanwhile are in: the head is still the
        // one the block was asked for after (see above), and the block builds on it.
        if (!equalBytes(hexToBytes(json.parentHash), this.head().hash)) return "other parent";
        await this.importBlock(json);
        return "imported";
      });
      if (step === "stop") break;
      if (step === "other parent") {
        // Nothing unwound: the upstream says its block at the head is ours and the next one
        // builds on another; asked again at the next poll, never in a loop.
        if ((await this.unwind(next - 1)) === next - 1) break;
        continue;
      }
      imported++;
    }
    return imported;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private head(): { number: number; hash: Uint8Array } {
    const number = this.deps.store.headNumber();
    const hash = number === undefined ? undefined : this.deps.store.canonicalHash(number);
    if (number === undefined || hash === undefined) throw new Error("the archive has no head");
    return { number, hash };
  }

  /** Sends an update stamped with its stream position (it never goes back). */
  private publish(update: FlashblockUpdate | SealedUpdate): void {
    const fb = update.kind === "flashblock" ? update : update.next;
    this.position = Math.max(this.position + 1, fb.base.number * 1024 + Math.max(0, fb.index));
    const stamped = { ...fb, position: this.position };
    this.deps.publish(update.kind === "flashblock" ? stamped : { ...update, next: stamped });
  }

  /** One canonical block: executed on the head, checked, committed; pending follows it. */
  private async importBlock(json: RpcBlock): Promise<void> {
    const { common, executor, store } = this.deps;
    const rlp = blockRlpFromJson(json);
    const started = performance.now();
    // What the stream pre-confirmed is the block, most of the time: sealed as replayed. Its
    // transactions are then the replay's, hash by hash, and the replay's transactions root is
    // the header's: the list is proven the header's without a trie of its own, and its
    // transactions are not decoded again.
    const canonical = canonicalBlock(rlp, common);
    let write = await this.replay.sealAs(canonical);
    if (write !== undefined) this.imported.fromReplay++;
    // Every transaction hash was checked; that the list is the header's, in its order, is this.
    else if (!equalBytes(listRoot(canonical.transactions), canonical.header.transactionsTrie)) {
      this.stop(
        `following stopped at block ${json.number} (${json.hash}): its transactions do not match its transactions root`,
      );
      return;
    }
    try {
      if (write === undefined) {
        const block = blockFromRlp(rlp, { common, setHardfork: true });
        await this.deps.prefetch?.prepare(block.transactions, dryRunBlockOf(block.header), false);
        write = await executor.execute(block, { ownStateRoot: true });
      }
    } catch (e) {
      if (!(e instanceof BlockRejectedError)) throw e;
      this.stop(`following stopped at block ${e.blockNumber} (${e.blockHash}): ${e.reason}`);
      return;
    } finally {
      this.deps.prefetch?.finished();
    }
    store.writeBlock(write);
    this.deps.onCommitted?.();
    this.imported.blocks++;
    this.imported.gas += canonical.header.gasUsed;
    this.imported.ms += performance.now() - started;
    const id = blockId("upstream", json);
    const result = this.sequencing.canonical(
      {
        number: Number(id.number),
        hash: id.hash,
        parentHash: parseData("upstream", "parentHash", json.parentHash, 32),
        transactionHashes: write.transactionHashes,
      },
      this.now(),
    );
    // The next block's flashblock 0 (opened from the early cache), or nothing pre-confirmed:
    // either way head and pending change together, in one update.
    const [next, ...rest] = await this.run(result);
    this.publish({
      kind: "sealed",
      number: write.number,
      hash: write.hash,
      sealedAt: this.now(),
      next: next ?? emptyPending(store, common, write.number),
    });
    for (const u of rest) this.publish(u);
  }

  /**
   * The upstream reorged below `from`: back to the newest block both still share. Returns the
   * block unwound to (`from`: none was; after a stop, the head as it was). The upstream is asked
   * outside the queue (only a catch-up moves the head); the archive is rewound inside it.
   */
  private async unwind(from: number): Promise<number> {
    const { store, client } = this.deps;
    const head = this.head().number;
    const base = store.forkBase();
    const bottom = base?.number ?? 0;
    let n = from;
    for (; n > bottom; n--) {
      const theirs = await client.blockByNumber(BigInt(n), false);
      const ours = store.canonicalHash(n);
      if (theirs !== null && ours !== undefined && equalBytes(hexToBytes(theirs.hash), ours)) break;
    }
    if (base !== undefined && n <= base.number) {
      // Below the base the blocks are the upstream's, read through it: if it forgot the base,
      // nothing here can be reconciled with it.
      const theirs = await client.blockByNumber(BigInt(base.number), false);
      if (theirs === null || !equalBytes(hexToBytes(theirs.hash), base.hash)) {
        await this.serial(async () =>
          this.stop(baseForgotten(base.number, base.hash, theirs?.hash, this.deps.datadir)),
        );
        return head;
      }
    }
    if (n === from) {
      const what = "the upstream has our head, but its next block has another parent: asked again";
      if (this.inconsistentAt !== from) this.deps.log("warn", what, { head: from });
      this.inconsistentAt = from;
      return n;
    }
    this.inconsistentAt = undefined;
    await this.serial(async () => {
      if (this.halted) return;
      await this.replay.clear();
      const removed = store.revertTo(n, []);
      await this.deps.executor.resetToHead();
      this.deps.onCommitted?.();
      this.deps.log("warn", "upstream reorg: unwound to the common ancestor", {
        from: head,
        to: n,
        removed: removed.length,
      });
      const hash = store.canonicalHash(n)!;
      await this.act(
        this.sequencing.canonical(
          { number: n, hash, parentHash: new Uint8Array(32), transactionHashes: [] },
          this.now(),
        ),
      );
      this.publish({
        kind: "sealed",
        number: n,
        hash,
        next: emptyPending(store, this.deps.common, n),
        reverted: { blocks: removed, pending: undefined },
      });
    });
    return n;
  }

  /** Following ends here, said once; the head stays, and nothing is pre-confirmed on it. */
  private stop(reason: string): void {
    if (this.stoppedFor !== undefined) return;
    this.stoppedFor = reason;
    this.deps.log("error", reason, {});
    this.deps.onStopped(reason);
    this.publish(emptyPending(this.deps.store, this.deps.common, this.head().number));
  }

  /** Logs and counts what the rules said (no actions). */
  private apply(result: SequencingResult): void {
    for (const e of result.events) {
      this.deps.onEvent(e);
      this.deps.log(
        ROUTINE.has(e.name) ? "debug" : "warn",
        `flashblocks: ${e.name}`,
        eventFields(e),
      );
    }
  }

  /** Runs the rules' actions and publishes what they produce. */
  private async act(result: SequencingResult): Promise<void> {
    for (const u of await this.run(result)) this.publish(u);
  }

  /** Runs the rules' actions; the updates they produce, in order (not yet published). */
  private async run(result: SequencingResult): Promise<FlashblockUpdate[]> {
    this.apply(result);
    const out: FlashblockUpdate[] = [];
    for (const a of result.actions) {
      try {
        if (a.kind === "clear") {
          await this.replay.clear();
          out.push(emptyPending(this.deps.store, this.deps.common, this.head().number));
        } else if (a.kind === "open") {
          const first = a.flashblocks[0]!;
          const arrived = (fb: Flashblock) => this.arrivals.get(fb);
          out.push(...(await this.replay.start(first.payloadId, a.base, a.flashblocks, arrived)));
        } else {
          out.push(await this.replay.extend(a.flashblock, this.arrivals.get(a.flashblock)));
        }
      } catch (e) {
        if (this.closing) throw e;
        // Whatever kept it from applying (a transaction that does not run, the upstream out of
        // reach for state it reads), pending is dropped until the next index 0: readers must never
        // be handed a later index on top of a block missing this one.
        const reason = e instanceof FlashblockRejectedError ? e.message : String(e);
        this.deps.log("warn", "flashblock not applied", { reason });
        await this.replay.clear().catch(() => undefined);
        const failed =
          a.kind === "extend" ? a.flashblock : a.kind === "open" ? a.flashblocks[0] : undefined;
        if (failed !== undefined)
          out.push(...(await this.run(this.sequencing.executionFailed(failed))));
      }
    }
    return out;
  }
}
