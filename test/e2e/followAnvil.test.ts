// `flashnode follow` of anvil (an Ethereum chain mined by hand) and a flashblocks stream written
// in the test that plays its sequencer: each flashblock's transactions go to anvil's pool, and
// the block is then mined with the timestamp and base fee its flashblock 0 announced. Pending
// storage and receipts appear flashblock by flashblock; once anvil mines, the follower's sealed
// block and receipts equal anvil's. anvil's hardfork is pinned to one flashnode runs (its default,
// "latest", is Osaka with BPO1's blob schedule) and the follower is told the same; a Cancun chain
// (no EIP-7685 requests hash in its headers) is followed too.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { WebSocket } from "ws";
import type { DevFork } from "../../src/chain/devGenesis.ts";
import type { RunningNode } from "../../src/node/plan.ts";
import { AnvilSequencer, slotOf } from "../utils/anvilFlashblocks.ts";
import { word } from "../utils/anvilUpstream.ts";
import { pollUntil } from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import { startFollowNode } from "../utils/nodes.ts";
import { silentLogger, testFrontendOptions } from "../utils/options.ts";

const BALANCE = 1_000_000n;
const CAROL = "0x00000000000000000000000000000000000c0a01";

type Block = { size: string; totalDifficulty?: string } & Record<string, unknown>;
type Log = { data: string; topics: string[]; logIndex: string };
type Receipt = {
  transactionHash: string;
  transactionIndex: string;
  blockNumber: string;
  status: string;
  gasUsed: string;
  cumulativeGasUsed: string;
  effectiveGasPrice: string;
  logs: Log[];
};

/** What a pre-confirmed receipt promises: everything but where the block ends up. */
function outcome(r: Receipt) {
  return {
    transactionHash: r.transactionHash,
    transactionIndex: r.transactionIndex,
    blockNumber: r.blockNumber,
    status: r.status,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    logs: r.logs.map((l) => ({ data: l.data, topics: l.topics, logIndex: l.logIndex })),
  };
}

for (const hardfork of ["osaka", "cancun"] satisfies DevFork[])
  describe(`anvil at ${hardfork}`, () => {
    let seq: AnvilSequencer;
    let follower: RunningNode;
    let ws: WebSocket;

    before(async () => {
      seq = await AnvilSequencer.start({ anvilArgs: ["--hardfork", hardfork] });
      await seq.deployToken(BALANCE);
      follower = await startFollowNode({
        datadir: tempDatadir(`follow-anvil-${hardfork}`),
        rpc: seq.anvil.url,
        flashblocks: seq.source.url,
        frontend: testFrontendOptions(),
        logger: silentLogger,
        hardfork,
        // The test's stream sends only what a test sends: no read deadline may cut the first
        // connection (the one `ws` holds) while a loaded machine is slow to get here.
        streamReadTimeoutMs: 600_000,
      });
      ws = await seq.source.connection();
      const head = (await seq.head()).number;
      await pollUntil(
        async () => call(follower.url, "eth_blockNumber"),
        (n) => n === head,
        30_000,
      );
    });

    after(async () => {
      await follower?.close();
      await seq?.close();
    });

    const send = (m: string) => ws.send(m);

    async function pendingBalance(holder: string): Promise<bigint> {
      const slot = slotOf(holder);
      return BigInt(
        (await call(follower.url, "eth_getStorageAt", [seq.token, slot, "pending"])) as string,
      );
    }

    async function pendingReceipts(): Promise<Receipt[]> {
      return (await call(follower.dedicatedUrl, "eth_getBlockReceipts", ["pending"])) as Receipt[];
    }

    /** anvil mined `plan`'s block; the follower's copy of it and its receipts equal anvil's. */
    async function sealedEqual(id: string): Promise<Receipt[]> {
      await pollUntil(
        async () => call(follower.url, "eth_blockNumber"),
        (n) => n === id,
        15_000,
      );
      const ours = (await call(follower.dedicatedUrl, "eth_getBlockByNumber", [id, true])) as Block;
      const theirs = await seq.anvil.rpc<Block>("eth_getBlockByNumber", [id, true]);
      // anvil's `size` leaves the (empty) withdrawals list out of the block's RLP, and it still
      // reports a post-merge totalDifficulty; ours is the length of the block's whole encoding.
      const { size, ...rest } = ours;
      const { size: _, totalDifficulty: __, ...theirRest } = theirs;
      assert.deepEqual(rest, theirRest, `block ${id}`);
      const raw = (await call(follower.url, "debug_getRawBlock", [id])) as string;
      assert.equal(BigInt(size), BigInt((raw.length - 2) / 2), "size is the block's RLP length");
      // anvil adds blobGasPrice to receipts of transactions without blobs, and blockTimestamp as
      // a JSON number (its logs carry it as hex, as ours do); the rest is compared as is.
      const anvilReceipts = await seq.anvil.rpc<Record<string, unknown>[]>("eth_getBlockReceipts", [
        id,
      ]);
      const receipts = (await call(follower.dedicatedUrl, "eth_getBlockReceipts", [
        id,
      ])) as Receipt[];
      assert.deepEqual(
        receipts,
        anvilReceipts.map(({ blobGasPrice: _, blockTimestamp: __, ...r }) => r),
        `receipts of ${id}`,
      );
      return receipts;
    }

    test("pending storage and receipts appear per flashblock; sealed blocks equal anvil's", async () => {
      const alice = AnvilSequencer.address(1);
      const bob = AnvilSequencer.address(2);
      const plan = await seq.plan();
      const number = `0x${plan.number.toString(16)}`;
      // Index 0 opens the block with one transfer; 1 and 2 add more, each visible on its own.
      const steps = [
        [await seq.transfer(1, CAROL, 10n)],
        [await seq.transfer(2, CAROL, 20n), await seq.transfer(1, bob, 5n)],
        [await seq.transfer(3, CAROL, 30n)],
      ];
      const expected = [
        { carol: 10n, alice: BALANCE - 10n, bob: BALANCE },
        { carol: 30n, alice: BALANCE - 15n, bob: BALANCE - 20n + 5n },
        { carol: 60n, alice: BALANCE - 15n, bob: BALANCE - 20n + 5n },
      ];
      const hashes: string[] = [];
      let receipts: Receipt[] = [];
      for (const [index, txs] of steps.entries()) {
        await seq.flashblock(plan, index, txs, send);
        hashes.push(...txs.map((t) => t.hash));
        receipts = await pollUntil(pendingReceipts, (rs) => rs.length === hashes.length, 15_000);
        assert.deepEqual(
          receipts.map((r) => [r.transactionHash, r.blockNumber, r.status]),
          hashes.map((h) => [h, number, "0x1"]),
          `flashblock ${index}: pending receipts`,
        );
        const want = expected[index]!;
        assert.equal(await pendingBalance(CAROL), want.carol, `flashblock ${index}: carol`);
        assert.equal(await pendingBalance(alice), want.alice, `flashblock ${index}: alice`);
        assert.equal(await pendingBalance(bob), want.bob, `flashblock ${index}: bob`);
        assert.equal(
          await call(follower.url, "eth_getStorageAt", [seq.token, slotOf(CAROL), "latest"]),
          word(0n),
          "latest is untouched until the block is sealed",
        );
      }
      const pendingBlock = (await call(follower.url, "eth_getBlockByNumber", [
        "pending",
        false,
      ])) as { number: string; timestamp: string; baseFeePerGas: string; miner: string };
      assert.deepEqual(
        [pendingBlock.number, BigInt(pendingBlock.timestamp), BigInt(pendingBlock.baseFeePerGas)],
        [number, plan.timestamp, plan.baseFee],
        "the pending block's context is the one flashblock 0 announced",
      );

      const sealed = await sealedEqual((await seq.mine(plan)).number);
      assert.deepEqual(
        receipts.map(outcome),
        sealed.map(outcome),
        "what was pre-confirmed is what was sealed",
      );
      assert.equal(await pendingBalance(CAROL), 60n);
    });

    test("the next block's flashblocks build on the sealed one", async () => {
      const plan = await seq.plan();
      const tx = await seq.transfer(4, CAROL, 40n);
      await seq.flashblock(plan, 0, [tx], send);
      await pollUntil(
        pendingReceipts,
        (rs) => rs.length === 1 && rs[0]!.transactionHash === tx.hash,
        15_000,
      );
      assert.equal(await pendingBalance(CAROL), 100n);
      const pendingHeader = (await call(follower.url, "eth_getBlockByNumber", [
        "pending",
        false,
      ])) as { requestsHash?: string };
      assert.equal(
        pendingHeader.requestsHash !== undefined,
        hardfork !== "cancun",
        "a requests hash only from Prague on",
      );
      await sealedEqual((await seq.mine(plan)).number);
    });
  });
