import assert from "node:assert/strict";
import { test } from "node:test";
import { callerFor, flashblockFromSealed } from "../../test/utils/fixtureChain.ts";
import { importFixtureChain, tempDatadir } from "../../test/utils/fixtures.ts";
import { flashblock, NO_DIFF, sentTransaction } from "../../test/utils/flashblockDiffs.ts";
import { silentLogger } from "../../test/utils/options.ts";
import { decodeHeader } from "../chain/blockView.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { PreconfirmedEvent } from "../feed/types.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { createBackend } from "./backendFactory.ts";
import { createChainView } from "./chainView.ts";

type LogJson = { logIndex: string; transactionIndex: string };

test("chain view: a flashblock's logs continue the block's indexes; the call worker is handed each snapshot", async () => {
  const kv = openKvEnv(tempDatadir("chain-view"));
  try {
    const feed = createFeedHub(silentLogger);
    const events: PreconfirmedEvent[] = [];
    feed.onPreconfirmed((e) => events.push(e));
    const forwarded: Array<{ pending: PendingBlock; sealed: boolean }> = [];
    const view = createChainView({
      kv,
      store: createChainStore(kv),
      feed,
      decodeHeader: () => {
        throw new Error("no header is read here");
      },
      forward: (pending, sealed) => forwarded.push({ pending, sealed }),
    });
    const account = { nonce: 1n, balance: 1n, codeHash: undefined };
    const A = new Uint8Array(20).fill(0xaa);
    view.apply(flashblock(5, 0, NO_DIFF, [sentTransaction(1, 2)]));
    view.apply(
      flashblock(5, 1, { ...NO_DIFF, accounts: [[A, account]] }, [
        sentTransaction(2, 1),
        sentTransaction(3, 3),
      ]),
    );
    view.apply(flashblock(5, 2, NO_DIFF, [sentTransaction(4, 1)]));
    const positions = events.map((e) =>
      e.logs.map((l) => {
        const j = JSON.parse(l.json) as LogJson;
        return [Number(j.transactionIndex), Number(j.logIndex)];
      }),
    );
    assert.deepEqual(positions, [
      [
        [0, 0],
        [0, 1],
      ],
      [
        [1, 2],
        [2, 3],
        [2, 4],
        [2, 5],
      ],
      [[3, 6]],
    ]);
    // The worker is handed the snapshot the readers see, each time: the same layers.
    assert.equal(forwarded.length, 3);
    assert.equal(forwarded[2]!.pending, view.pending());
    assert.equal(forwarded[2]!.pending.state.layers[0], forwarded[1]!.pending.state.layers[0]);
    assert.ok(forwarded.every((f) => !f.sealed));
    // A seal swaps in the next block's flashblock 0, and says it sealed.
    view.apply({
      kind: "sealed",
      number: 5,
      hash: new Uint8Array(32),
      next: flashblock(6, 0, NO_DIFF, [sentTransaction(5, 1)]),
    });
    assert.equal(forwarded.length, 4);
    assert.equal(forwarded[3]!.sealed, true);
    assert.equal(view.pending()?.base.number, 6);
    assert.equal(view.pending()?.transactionCount, 1);
    const last = events.at(-1)!.logs.map((l) => JSON.parse(l.json) as LogJson);
    assert.deepEqual(
      last.map((j) => [Number(j.transactionIndex), Number(j.logIndex)]),
      [[0, 0]],
    );
  } finally {
    await kv.close();
  }
});

test("chain view: a block's flashblocks taken before its seal, the archive already holding the block: head is its parent until the seal", async () => {
  // A reader process that joined before block 54's seal was published gets the block so far
  // (flashblocks, no seal) while its archive may already hold block 54: the sequencer commits
  // before it publishes the seal, and a reader opens its archive after it joins.
  const kv = openKvEnv(importFixtureChain("chain-view-join"), { readOnly: true });
  try {
    const store = createChainStore(kv);
    const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()!));
    assert.equal(store.headNumber(), 54);
    const view = createChainView({
      kv,
      store,
      feed: createFeedHub(silentLogger),
      decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
    });
    const call = callerFor(createBackend(spec, store, { pending: view.pending, head: view.head }));
    const shown = async () => ({
      head: Number((await call("eth_blockNumber")).result),
      pending: Number(
        ((await call("eth_getBlockByNumber", ["pending", false])).result as { number: string })
          .number,
      ),
    });
    view.apply(flashblockFromSealed(store, spec, 54), true);
    view.apply(flashblock(54, 1, NO_DIFF, []), true);
    assert.deepEqual(
      await shown(),
      { head: 53, pending: 54 },
      "pending is the block after the head",
    );
    assert.equal(view.head(), 53);
    // Its seal comes: head and pending move together.
    view.apply({
      kind: "sealed",
      number: 54,
      hash: store.canonicalHash(54)!,
      next: flashblock(55, 0, NO_DIFF, []),
    });
    assert.deepEqual(await shown(), { head: 54, pending: 55 });
  } finally {
    await kv.close();
  }
});
