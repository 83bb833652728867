// How much work around the EVM a transaction costs on its way through an OP-stack chain, counted
// on a sequencer and a follower run in this process: each is decoded, encoded and has its sender
// derived once per node, and runs in a block context made once per block, where each used to be
// re-encoded for its hash, its L1 fee and the block (4–5 times), to have its sender's address
// derived 3–5 times (a JS keccak each) and to get a header (a copy of the Common, its parameter cache rebuilt) of its
// own, besides the copy its decoding makes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Common } from "@ethereumjs/common";
import { FeeMarket1559Tx } from "@ethereumjs/tx";
import { startInProcessChain } from "../../test/utils/inProcessChain.ts";
import { blockRlp, splitBlockRlp } from "../chain/rawEncoding.ts";
import { parseFlashblock } from "../follow/flashblock.ts";
import { canonicalBlock, PendingReplay } from "../follow/pendingReplay.ts";
import { wireJsonOf } from "../pending/flashblockWire.ts";

type Counted = "serialize" | "getSenderAddress" | "copy" | "_buildParamsCache";

/** Counts calls of the library's methods while `fn` runs. */
async function counting(fn: () => Promise<void>): Promise<Record<Counted, number>> {
  const counts: Record<Counted, number> = {
    serialize: 0,
    getSenderAddress: 0,
    copy: 0,
    _buildParamsCache: 0,
  };
  type Methods = Record<string, (...a: unknown[]) => unknown>;
  const targets: [Methods, Counted][] = [
    [FeeMarket1559Tx.prototype as unknown as Methods, "serialize"],
    [FeeMarket1559Tx.prototype as unknown as Methods, "getSenderAddress"],
    [Common.prototype as unknown as Methods, "copy"],
    [Common.prototype as unknown as Methods, "_buildParamsCache"],
  ];
  const originals = targets.map(([proto, name]) => proto[name]!);
  for (const [proto, name] of targets) {
    const original = proto[name]!;
    proto[name] = function (this: unknown, ...a: unknown[]) {
      counts[name]++;
      return original.apply(this, a);
    };
  }
  try {
    await fn();
  } finally {
    for (const [i, [proto, name]] of targets.entries()) proto[name] = originals[i]!;
  }
  return counts;
}

const N = 30;

test("a transaction is decoded, encoded and its sender derived once, in a block context made once", async () => {
  const chain = await startInProcessChain(N);
  const seq = chain.sequencer;
  try {
    // A block of N transfers, as the pool takes them: intake, execution, one flashblock, seal.
    const raws = Array.from({ length: N }, (_, i) => chain.transfer(i));
    const sequencer = await counting(async () => {
      for (const raw of raws) await seq.submit(raw);
      await seq.mine();
    });
    const number = chain.archive.store.headNumber()!;
    const hash = chain.archive.store.canonicalHash(number)!;
    const rlp = blockRlp(
      chain.archive.store.headerRlp(number, hash)!,
      chain.archive.store.bodyRlp(number, hash)!,
    );
    assert.equal(canonicalBlock(rlp, chain.archive.spec.common).transactions.length, N + 1);
    // Per transaction: no encoding (its bytes are kept), its sender never derived by the library
    // (a JS keccak of the key at each call: txFacts.ts pins it), its decoding's copy of the
    // Common and no other.
    assert.equal(sequencer.serialize, 0, JSON.stringify(sequencer));
    assert.equal(sequencer.getSenderAddress, 0, JSON.stringify(sequencer));
    assert.ok(sequencer.copy <= N + 15, JSON.stringify(sequencer));
    assert.ok(sequencer._buildParamsCache <= 8, JSON.stringify(sequencer));

    // The follower: the block's flashblocks replayed, then the block sealed from the replay.
    const follower = await chain.openArchive("follower");
    const replay = new PendingReplay(follower.executor, follower.spec.common);
    const flashblocks = chain.updates
      .map((u) => (u.kind === "flashblock" ? u : u.next))
      .filter((u) => u.base.number === number)
      .map((u) => parseFlashblock(JSON.parse(wireJsonOf(u)!)));
    const following = await counting(async () => {
      const [fb0, ...rest] = flashblocks;
      await replay.start(fb0!.payloadId, fb0!.base!, [fb0!]);
      for (const fb of rest) await replay.extend(fb);
      const write = await replay.sealAs(canonicalBlock(rlp, follower.spec.common));
      assert.ok(write !== undefined, "sealed from the replay");
      assert.deepEqual(write.bodyRlp, splitBlockRlp(rlp).bodyRlp);
      follower.store.writeBlock(write);
    });
    assert.equal(following.serialize, 0, JSON.stringify(following));
    assert.equal(following.getSenderAddress, 0, JSON.stringify(following));
    assert.ok(following.copy <= N + 15, JSON.stringify(following));
    assert.ok(following._buildParamsCache <= 8, JSON.stringify(following));
    assert.equal(follower.store.canonicalHash(number)?.toString(), hash.toString());
  } finally {
    await chain.close();
  }
});
