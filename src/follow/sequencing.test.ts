import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keccak256 } from "../util/crypto.ts";
import type { Hex } from "../util/hex.ts";
import type { Flashblock } from "./flashblock.ts";
import { Sequencing, type SequencingOptions } from "./sequencing.ts";
import type { CanonicalBlock, SequencingResult } from "./sequencingTypes.ts";

const ZERO32 = new Uint8Array(32);

function hash(label: string): Uint8Array {
  return keccak256(Buffer.from(label));
}

/** The hash of block `n` on branch `fork` ("" = the main one). */
function blockHash(n: number, fork = ""): Uint8Array {
  return hash(`block ${n}${fork}`);
}

function payload(n: number, build = 0): Hex {
  return `0x${(n * 16 + build).toString(16).padStart(16, "0")}`;
}

type FbOpts = { build?: number; parentFork?: string; txs?: string[] };

function fb(n: number, index: number, o: FbOpts = {}): Flashblock {
  const txs = o.txs ?? [`tx ${n}.${index}.${o.build ?? 0}`];
  return {
    payloadId: payload(n, o.build),
    index,
    blockNumber: n,
    base:
      index === 0
        ? {
            parentHash: blockHash(n - 1, o.parentFork),
            parentBeaconBlockRoot: ZERO32,
            feeRecipient: new Uint8Array(20),
            prevRandao: ZERO32,
            blockNumber: n,
            gasLimit: 30_000_000n,
            timestamp: BigInt(n * 2),
            extraData: new Uint8Array(0),
            baseFeePerGas: 1n,
          }
        : undefined,
    diff: {
      stateRoot: ZERO32,
      receiptsRoot: ZERO32,
      logsBloom: new Uint8Array(256),
      gasUsed: 0n,
      blockHash: ZERO32,
      transactions: txs.map((t) => ({ raw: Buffer.from(t), hash: hash(t) })),
      withdrawals: [],
      withdrawalsRoot: ZERO32,
      blobGasUsed: undefined,
    },
    metadata: { receipts: undefined, newAccountBalances: undefined },
  };
}

function canonical(n: number, txs: string[], fork = "", parentFork = ""): CanonicalBlock {
  return {
    number: n,
    hash: blockHash(n, fork),
    parentHash: blockHash(n - 1, parentFork),
    transactionHashes: txs.map(hash),
  };
}

/** The labels of the default transactions of flashblocks 0..k of block n. */
function txsOf(n: number, k: number): string[] {
  return Array.from({ length: k + 1 }, (_, i) => `tx ${n}.${i}.0`);
}

function names(r: SequencingResult): string[] {
  return r.events.map((e) => e.name);
}

function kinds(r: SequencingResult): string[] {
  return r.actions.map((a) => (a.kind === "clear" ? `clear:${a.reason}` : a.kind));
}

/** Read through a call, so that an assertion on `s.pending` does not narrow later reads. */
function pendingOf(s: Sequencing) {
  return s.pending;
}

/** A machine whose head is block `n` and whose pending is block n+1, flashblocks 0..k. */
function withPending(n: number, k: number, opts: Partial<SequencingOptions> = {}): Sequencing {
  const s = new Sequencing(opts);
  s.canonical(canonical(n, []), 0);
  for (let i = 0; i <= k; i++) s.flashblock(fb(n + 1, i), i);
  assert.equal(s.pending?.flashblocks.length, k + 1);
  return s;
}

describe("Sequencing", () => {
  it("has nothing pending until an index 0 lands on the head (pending answers latest)", () => {
    const s = new Sequencing();
    assert.equal(s.pending, undefined);
    assert.equal(s.head, undefined);
    s.canonical(canonical(10, []), 0);
    assert.equal(s.pending, undefined);
    assert.deepEqual(s.head, { number: 10, hash: blockHash(10) });
  });

  it("opens on index 0 of the next block and applies index + 1", () => {
    const s = new Sequencing();
    s.canonical(canonical(10, []), 0);
    const r0 = s.flashblock(fb(11, 0), 1);
    assert.deepEqual(kinds(r0), ["open"]);
    assert.deepEqual(names(r0), ["applied"]);
    const open = r0.actions[0]!;
    assert.ok(open.kind === "open");
    assert.equal(open.from, "stream");
    assert.deepEqual(open.parent, { number: 10, hash: blockHash(10) });
    assert.equal(open.base.blockNumber, 11);
    const r1 = s.flashblock(fb(11, 1), 2);
    assert.deepEqual(kinds(r1), ["extend"]);
    assert.equal(open.flashblocks.length, 1, "an action keeps the list it was given");
    assert.deepEqual(r1.events, [{ name: "applied", block: 11, index: 1, transactions: 1 }]);
    const p = s.pending!;
    assert.equal(p.number, 11);
    assert.equal(p.payloadId, payload(11));
    assert.deepEqual(p.transactionHashes, txsOf(11, 1).map(hash));
    assert.equal(p.updatedAt, 2);
  });

  it("ignores a duplicate, and clears on another flashblock for an index already applied", () => {
    const s = withPending(10, 2);
    const dup = s.flashblock(fb(11, 1), 5);
    assert.deepEqual(kinds(dup), []);
    assert.deepEqual(dup.events, [{ name: "duplicate", block: 11, index: 1 }]);
    assert.equal(s.pending?.flashblocks.length, 3);
    const conflict = s.flashblock(fb(11, 2, { txs: ["other"] }), 6);
    assert.deepEqual(names(conflict), ["conflict"]);
    assert.deepEqual(kinds(conflict), ["clear:conflict"]);
    assert.equal(s.pending, undefined);
  });

  it("clears on a gap and stays clear until the next index 0: never a block with a hole", () => {
    const s = withPending(10, 2);
    const gap = s.flashblock(fb(11, 4), 5);
    assert.deepEqual(gap.events, [{ name: "gap", block: 11, index: 4, expected: 3 }]);
    assert.deepEqual(kinds(gap), ["clear:gap"]);
    assert.equal(s.pending, undefined);
    // The rest of block 11 has no index 0 here: skipped.
    const late = s.flashblock(fb(11, 5), 6);
    assert.deepEqual(late.events, [{ name: "nonZeroFirst", block: 11, index: 5 }]);
    assert.deepEqual(kinds(late), []);
    // Block 12's index 0 waits for block 11, then opens.
    assert.deepEqual(names(s.flashblock(fb(12, 0), 7)), ["earlyCached"]);
    const landed = s.canonical(canonical(11, txsOf(11, 5)), 8);
    assert.deepEqual(kinds(landed), ["open"]);
    assert.equal(pendingOf(s)?.number, 12);
  });

  it("skips a first flashblock that is not index 0 (joined mid-block)", () => {
    const s = new Sequencing();
    s.canonical(canonical(10, []), 0);
    const r = s.flashblock(fb(11, 3), 1);
    assert.deepEqual(r.events, [{ name: "nonZeroFirst", block: 11, index: 3 }]);
    assert.deepEqual(r.actions, []);
    assert.equal(s.pending, undefined);
  });

  it("caches flashblocks whose parent is not canonical yet and applies them when it lands", () => {
    const s = withPending(10, 1);
    const c0 = s.flashblock(fb(12, 0), 5);
    assert.deepEqual(c0.events, [
      { name: "earlyCached", block: 12, index: 0, reason: "parent-not-canonical" },
    ]);
    assert.deepEqual(c0.actions, []);
    s.flashblock(fb(12, 1), 6);
    assert.equal(s.cachedFlashblocks, 2);
    assert.equal(s.pending?.number, 11, "pending stays on block 11 meanwhile");
    const landed = s.canonical(canonical(11, txsOf(11, 1)), 7);
    assert.deepEqual(names(landed), ["canonicalMatch", "earlyApplied"]);
    const open = landed.actions[0]!;
    assert.ok(open.kind === "open");
    assert.equal(open.from, "cache");
    assert.deepEqual(
      open.flashblocks.map((f) => f.index),
      [0, 1],
    );
    assert.deepEqual(open.parent, { number: 11, hash: blockHash(11) });
    assert.equal(s.cachedFlashblocks, 0);
    assert.deepEqual(kinds(s.flashblock(fb(12, 2), 8)), ["extend"]);
  });

  it("caches what arrives before any canonical block (a restart, base#826)", () => {
    const s = new Sequencing();
    const r = s.flashblock(fb(11, 0), 1);
    assert.deepEqual(r.events, [
      { name: "earlyCached", block: 11, index: 0, reason: "head-unknown" },
    ]);
    s.flashblock(fb(11, 1), 2);
    const landed = s.canonical(canonical(10, []), 3);
    assert.deepEqual(kinds(landed), ["open"]);
    assert.equal(s.pending?.flashblocks.length, 2);
  });

  it("keeps an index 0 on another branch of the head until the head moves onto it", () => {
    const s = new Sequencing();
    s.canonical(canonical(10, []), 0);
    const r = s.flashblock(fb(11, 0, { parentFork: "b" }), 1);
    assert.deepEqual(r.events, [
      { name: "earlyCached", block: 11, index: 0, reason: "parent-mismatch" },
    ]);
    assert.deepEqual(names(s.flashblock(fb(11, 1), 2)), ["earlyCached"]);
    const reorg = s.canonical(canonical(10, [], "b"), 3);
    assert.deepEqual(names(reorg), ["canonicalReorg", "earlyApplied"]);
    assert.equal(s.pending?.flashblocks.length, 2);
    assert.deepEqual(s.pending?.parent.hash, blockHash(10, "b"));
  });

  describe("early cache bounds", () => {
    it("evicts the farthest flashblock past maxCachedFlashblocks", () => {
      const s = withPending(10, 0, { maxCachedFlashblocks: 3 });
      s.flashblock(fb(12, 0), 1);
      s.flashblock(fb(12, 1), 2);
      s.flashblock(fb(13, 0), 3);
      const r = s.flashblock(fb(13, 1), 4);
      assert.deepEqual(r.events.at(-1), {
        name: "earlyEvicted",
        block: 13,
        flashblocks: 1,
        reason: "capacity",
      });
      assert.equal(s.cachedFlashblocks, 3);
    });

    it("refuses flashblocks more than maxCacheAheadBlocks ahead of the head", () => {
      const s = withPending(10, 0, { maxCacheAheadBlocks: 2, maxPendingDepth: 10 });
      assert.deepEqual(names(s.flashblock(fb(12, 0), 1)), ["earlyCached"]);
      const r = s.flashblock(fb(13, 0), 2);
      assert.deepEqual(r.events, [
        { name: "earlyEvicted", block: 13, flashblocks: 1, reason: "distance" },
      ]);
      assert.equal(s.cachedFlashblocks, 1);
    });

    it("drops cached blocks that became canonical, and a next block with no index 0", () => {
      const s = withPending(10, 0, { maxPendingDepth: 10 });
      s.flashblock(fb(12, 1), 1); // index 0 of 12 was lost
      s.flashblock(fb(12, 2), 2);
      s.flashblock(fb(13, 0, { parentFork: "b" }), 3); // on another branch of block 12
      const r11 = s.canonical(canonical(11, txsOf(11, 0)), 4);
      assert.deepEqual(r11.events.slice(1), [
        { name: "earlyEvicted", block: 12, flashblocks: 2, reason: "unchained" },
      ]);
      assert.deepEqual(kinds(r11), ["clear:caught-up"]);
      assert.equal(s.cachedFlashblocks, 1);
      // Block 13 becomes canonical: the flashblocks of its other build are of no use.
      assert.deepEqual(kinds(s.canonical(canonical(12, []), 5)), []);
      const r13 = s.canonical(canonical(13, []), 6);
      assert.deepEqual(r13.events, [
        { name: "earlyEvicted", block: 13, flashblocks: 1, reason: "superseded" },
      ]);
      assert.equal(s.cachedFlashblocks, 0);
    });

    it("takes flashblocks up to the first hole and drops the rest", () => {
      const s = withPending(10, 0);
      for (const i of [0, 1, 3]) s.flashblock(fb(12, i), i);
      const r = s.canonical(canonical(11, txsOf(11, 0)), 5);
      assert.deepEqual(names(r), ["canonicalMatch", "earlyEvicted", "earlyApplied"]);
      assert.equal(s.pending?.flashblocks.length, 2);
      assert.deepEqual(names(s.flashblock(fb(12, 3), 6)), ["gap"]);
    });

    it("expires cached flashblocks older than maxPendingAgeMs", () => {
      const s = withPending(10, 0, { maxPendingAgeMs: 1_000 });
      s.flashblock(fb(12, 0), 500);
      const r = s.tick(1_400);
      assert.deepEqual(names(r), ["stale"]);
      assert.deepEqual(kinds(r), ["clear:stale"]);
      assert.equal(s.cachedFlashblocks, 1, "received at 500: still within the limit");
      assert.deepEqual(s.tick(1_501).events, [
        { name: "earlyEvicted", block: 12, flashblocks: 1, reason: "stale" },
      ]);
      assert.equal(s.cachedFlashblocks, 0);
    });
  });

  it("drops a pre-confirmed block that the canonical one leaves a transaction out of", () => {
    const s = new Sequencing();
    s.canonical(canonical(10, []), 0);
    s.flashblock(fb(11, 0, { txs: ["deposit"] }), 1);
    s.flashblock(fb(11, 1, { txs: ["a", "b", "c"] }), 2);
    const r = s.canonical(canonical(11, ["deposit", "a", "c"]), 3);
    assert.deepEqual(r.events, [
      { name: "canonicalMismatch", block: 11, preconfirmed: 4, canonical: 3, firstDifference: 2 },
    ]);
    assert.deepEqual(kinds(r), ["clear:canonical-mismatch"]);
    assert.equal(s.pending, undefined);
  });

  it("rebuilds pending from the next block's flashblocks when the canonical block differs", () => {
    const s = new Sequencing();
    s.canonical(canonical(10, []), 0);
    s.flashblock(fb(11, 0, { txs: ["deposit", "a"] }), 1);
    s.flashblock(fb(12, 0), 2);
    s.flashblock(fb(12, 1), 3);
    // Same transactions in another order: a mismatch too.
    const r = s.canonical(canonical(11, ["a", "deposit"]), 4);
    assert.deepEqual(names(r), ["canonicalMismatch", "earlyApplied"]);
    assert.deepEqual(kinds(r), ["open"]);
    assert.equal(s.pending?.number, 12);
    assert.equal(s.pending?.flashblocks.length, 2);
  });

  it("moves on when the canonical block equals the pre-confirmed one", () => {
    const s = withPending(10, 2);
    const r = s.canonical(canonical(11, txsOf(11, 2)), 5);
    assert.deepEqual(r.events, [
      { name: "canonicalMatch", block: 11, preconfirmed: 3, canonical: 3 },
    ]);
    assert.deepEqual(kinds(r), ["clear:caught-up"]);
    assert.equal(s.pending, undefined);
    assert.equal(s.head?.number, 11);
    // Flashblocks of block 11 that come after it landed are too late.
    const late = s.flashblock(fb(11, 3), 6);
    assert.deepEqual(late.events, [{ name: "superseded", block: 11, index: 3 }]);
    assert.deepEqual(late.actions, []);
  });

  it("counts a canonical block that adds to what was pre-confirmed as a match", () => {
    const s = withPending(10, 1);
    const r = s.canonical(canonical(11, [...txsOf(11, 1), "tx not streamed yet"]), 5);
    assert.deepEqual(r.events, [
      { name: "canonicalMatch", block: 11, preconfirmed: 2, canonical: 3 },
    ]);
  });

  describe("depth limit", () => {
    it("drops pending more than maxPendingDepth blocks behind the stream's tip", () => {
      const s = withPending(10, 0, { maxPendingDepth: 3 });
      for (const n of [12, 13, 14]) assert.deepEqual(kinds(s.flashblock(fb(n, 0), n)), []);
      assert.equal(s.pending?.number, 11);
      const r = s.flashblock(fb(15, 0), 15);
      assert.deepEqual(r.events.at(-1), {
        name: "depthExceeded",
        block: 11,
        tip: 15,
        maxDepth: 3,
      });
      assert.deepEqual(kinds(r), ["clear:depth-exceeded"]);
      assert.equal(s.pending, undefined);
    });

    it("drops pending behind the upstream's head, and does not open a block that far behind", () => {
      const s = withPending(10, 0, { maxPendingDepth: 3 });
      assert.deepEqual(kinds(s.tipSeen(14)), []);
      const r = s.tipSeen(15);
      assert.deepEqual(names(r), ["depthExceeded"]);
      assert.deepEqual(kinds(r), ["clear:depth-exceeded"]);
      // Block 11 lands: block 12 from the cache is 3 behind, which is fine.
      s.flashblock(fb(12, 0), 20);
      assert.deepEqual(kinds(s.canonical(canonical(11, []), 21)), ["open"]);
      s.flashblock(fb(13, 0), 22);
      assert.deepEqual(kinds(s.tipSeen(17)), ["clear:depth-exceeded"]);
      // Block 12 lands: block 13, cached, is 4 behind the tip: not opened.
      const late = s.canonical(canonical(12, []), 23);
      assert.deepEqual(late.events, [
        { name: "depthExceeded", block: 13, tip: 17, maxDepth: 3 },
        { name: "earlyEvicted", block: 13, flashblocks: 1, reason: "depth" },
      ]);
      assert.deepEqual(late.actions, []);
      // An index 0 from the stream that is already too far behind is not opened either.
      assert.deepEqual(names(s.flashblock(fb(13, 0), 24)), ["depthExceeded"]);
      assert.equal(s.pending, undefined);
    });

    it("measures from the pending block, so a healthy follower never trips it (base#4916)", () => {
      const s = new Sequencing({ maxPendingDepth: 1 });
      s.canonical(canonical(10, []), 0);
      for (let n = 11; n < 30; n++) {
        for (let i = 0; i < 4; i++) {
          const r = s.flashblock(fb(n, i), n * 10 + i);
          assert.ok(!names(r).includes("depthExceeded"));
        }
        // The next block's index 0 comes before this block lands, as on Base.
        s.flashblock(fb(n + 1, 0), n * 10 + 5);
        const landed = s.canonical(canonical(n, txsOf(n, 3)), n * 10 + 6);
        assert.deepEqual(names(landed), ["canonicalMatch", "earlyApplied"]);
        s.flashblock(fb(n + 1, 0), n * 10 + 7); // a duplicate of the replayed one
      }
    });
  });

  it("clears pending when the canonical block under it is reorged", () => {
    const s = withPending(10, 2);
    const r = s.canonical(canonical(10, [], "b"), 5);
    assert.deepEqual(r.events, [{ name: "canonicalReorg", block: 10, previous: 10 }]);
    assert.deepEqual(kinds(r), ["clear:canonical-reorg"]);
    assert.equal(s.pending, undefined);
    // The old branch's flashblocks no longer apply; the new branch's do.
    assert.deepEqual(names(s.flashblock(fb(11, 3), 6)), ["nonZeroFirst"]);
    assert.deepEqual(kinds(s.flashblock(fb(11, 0, { build: 1, parentFork: "b" }), 7)), ["open"]);
  });

  it("clears pending when the head unwinds below it", () => {
    const s = withPending(10, 1);
    const r = s.canonical(canonical(9, []), 5);
    assert.deepEqual(names(r), ["canonicalReorg"]);
    assert.deepEqual(kinds(r), ["clear:canonical-reorg"]);
  });

  it("ignores a canonical block announced twice", () => {
    const s = withPending(10, 1);
    const r = s.canonical(canonical(10, []), 5);
    assert.deepEqual(r, { actions: [], events: [] });
    assert.equal(s.pending?.number, 11);
  });

  it("follows a new build of the pending block from its index 0, and clears without it", () => {
    const s = withPending(10, 2);
    const rebuilt = s.flashblock(fb(11, 0, { build: 1 }), 5);
    assert.deepEqual(names(rebuilt), ["payloadChanged", "applied"]);
    assert.deepEqual(kinds(rebuilt), ["open"]);
    assert.equal(s.pending?.payloadId, payload(11, 1));
    const foreign = s.flashblock(fb(11, 1, { build: 2 }), 6);
    assert.deepEqual(foreign.events, [
      {
        name: "payloadChanged",
        block: 11,
        index: 1,
        payloadId: payload(11, 2),
        previous: payload(11, 1),
      },
    ]);
    assert.deepEqual(kinds(foreign), ["clear:payload-changed"]);
  });

  it("drops pending the follower could not apply, but not for a report about an older build", () => {
    const s = withPending(10, 2);
    assert.deepEqual(s.executionFailed(fb(11, 1, { build: 1 })), { actions: [], events: [] });
    const r = s.executionFailed(fb(11, 1));
    assert.deepEqual(r.events, [{ name: "executionFailed", block: 11, index: 1 }]);
    assert.deepEqual(kinds(r), ["clear:execution-failed"]);
    assert.deepEqual(names(s.flashblock(fb(11, 3), 5)), ["nonZeroFirst"]);
    assert.deepEqual(s.executionFailed(fb(11, 3)), { actions: [], events: [] });
  });

  it("drops pending that got no flashblock for maxPendingAgeMs", () => {
    const s = withPending(10, 1, { maxPendingAgeMs: 1_000 });
    assert.deepEqual(kinds(s.tick(1_000)), []);
    const r = s.tick(1_002);
    assert.deepEqual(r.events, [{ name: "stale", block: 11, ageMs: 1_001 }]);
    assert.deepEqual(kinds(r), ["clear:stale"]);
  });
});
