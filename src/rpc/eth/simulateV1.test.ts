import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createBlockHeaderFromRLP } from "@ethereumjs/block";
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startTestDevNode } from "../../../test/utils/devChain.ts";
import {
  type Caller,
  type FixtureChain,
  fixtureChain,
  pendingFromSealed,
  result,
} from "../../../test/utils/fixtureChain.ts";
import { call, rpc } from "../../../test/utils/fixtures.ts";
import { RPC_GAS_CAP } from "../../exec/callExecutor.ts";
import { simulate } from "../../exec/simulate/simulate.ts";
import { Simulator } from "../../exec/simulate/simulator.ts";
import type { RunningNode as DevNode } from "../../node/plan.ts";
import type { PendingBlock } from "../../pending/pendingBlock.ts";
import { overlayPending } from "../../pending/pendingState.ts";
import type { CallService } from "../../services/calls.ts";
import type { ChainStore } from "../../store/archive.ts";
import { parseSimulateOptions } from "./simulateParams.ts";

const A = "0xc000000000000000000000000000000000000000";
const B = "0xc100000000000000000000000000000000000000";
const C = "0xc200000000000000000000000000000000000000";
type Block = Record<string, unknown> & {
  hash: string;
  parentHash: string;
  number: string;
  stateRoot: string;
  transactions: Array<string | { from: string; hash: string }>;
  calls: Array<{ status: string; gasUsed: string; logs: unknown[]; error?: unknown }>;
};

/** Two transfers in one block (execution-apis' ethSimulate-simple). */
const TRANSFERS = {
  blockStateCalls: [
    {
      stateOverrides: { [A]: { balance: "0x3e8" } },
      calls: [
        { from: A, to: B, value: "0x3e8" },
        { from: B, to: C, value: "0x3e8" },
      ],
    },
  ],
};

describe("eth_simulateV1 on the fixture chain", () => {
  let chain: FixtureChain;
  let latest: Caller;
  let pending: Caller;
  let block54: PendingBlock;
  const simulateOver =
    (spec: FixtureChain["spec"]) =>
    (store: ChainStore, block: PendingBlock | undefined): CallService => {
      const no = () => Promise.reject(new Error("not in this test"));
      return {
        call: no,
        estimateGas: no,
        createAccessList: no,
        trace: no,
        buildBlock: no,
        simulate: (req, target) => simulate(req, target, spec, store, block, RPC_GAS_CAP),
      };
    };

  before(async () => {
    chain = await fixtureChain("simulateV1");
    const calls = simulateOver(chain.spec);
    latest = chain.at({ head: 54, calls });
    // Block 54 as the pre-confirmed block over 53, with the state it wrote.
    const store = chain.store;
    const changes = store.blockChanges(54);
    block54 = pendingFromSealed(store, chain.spec, 54, {
      accounts: changes.accounts.map((c) => [c.address, c.after] as const),
      storage: changes.storage.map((c) => [c.address, c.slot, c.after] as const),
      wiped: [],
      code: [],
    });
    pending = chain.at({
      head: 53,
      pending: true,
      calls: (view) => simulateOver(chain.spec)(view, block54),
    });
  });
  after(async () => {
    await chain?.close();
  });

  test("pinned: two transfers make geth's block (hash, roots), senders in full transactions", async () => {
    const [block] = (await result(latest, "eth_simulateV1", [
      { ...TRANSFERS, returnFullTransactions: true },
      "latest",
    ])) as Block[];
    // The hash execution-apis recorded from geth for this request (fixture ethSimulate-simple).
    assert.equal(block?.hash, "0xdb785f2444d7f68bc2bc04860c27ad059217192d17e2889ec801bcae9209b204");
    assert.equal(
      block?.stateRoot,
      "0x026d07e9a1fb2c8e737ede84b4d70fd2c3be2872646b9ff1d13c215eb81354e5",
    );
    assert.equal(block?.number, "0x37");
    assert.deepEqual(
      block?.transactions.map((t) => (typeof t === "string" ? t : t.from)),
      [A, B],
    );
    assert.deepEqual(
      block?.calls.map((c) => [c.status, c.gasUsed]),
      [
        ["0x1", "0x5208"],
        ["0x1", "0x5208"],
      ],
    );
  });

  test("the pre-confirmed block as base: zero parent hash, else as on the sealed block", async () => {
    const [onSealed] = (await result(latest, "eth_simulateV1", [TRANSFERS, "latest"])) as Block[];
    const [onPending] = (await result(pending, "eth_simulateV1", [
      TRANSFERS,
      "pending",
    ])) as Block[];
    // The pending block has no hash yet (zero, as the node reports it). EIP-2935 stores the
    // parent hash, so the state root differs too; the rest is the same.
    assert.equal(onPending?.parentHash, `0x${"00".repeat(32)}`);
    const { hash: _h, parentHash: _p, stateRoot: _s, ...sealedRest } = onSealed!;
    const { hash: _h2, parentHash: _p2, stateRoot: _s2, ...pendingRest } = onPending!;
    assert.deepEqual(pendingRest, sealedRest);
  });

  test("the pre-confirmed block's writes reach the state root: same roots as once sealed", async () => {
    const req = parseSimulateOptions(TRANSFERS);
    const spec = chain.spec;
    const store = chain.store;
    const header = createBlockHeaderFromRLP(store.headerRlp(54, store.canonicalHash(54)!)!, {
      common: spec.common,
      setHardfork: true,
    });
    const view = (n: number) => ({
      account: (a: Uint8Array) => store.account(a, n),
      storage: (a: Uint8Array, slot: Uint8Array) => store.storage(a, slot, n),
      code: (h: Uint8Array) => store.code(h),
    });
    const ctx = {
      spec,
      nodes: store,
      canonicalHash: (n: number) => store.canonicalHash(n),
      gasCap: RPC_GAS_CAP,
    };
    const sealed = await Simulator.run(
      req,
      { header, hash: header.hash(), trieRoot: header.stateRoot, pending: undefined },
      { ...ctx, source: view(54) },
    );
    const parentRoot = createBlockHeaderFromRLP(store.headerRlp(53, store.canonicalHash(53)!)!, {
      common: spec.common,
    }).stateRoot;
    const overPending = await Simulator.run(
      req,
      { header, hash: header.hash(), trieRoot: parentRoot, pending: block54 },
      { ...ctx, source: overlayPending(block54, view(53)) },
    );
    assert.deepEqual(overPending, sealed);
  });

  test("errors: geth's codes and texts", async () => {
    const error = async (params: unknown[]) => (await latest("eth_simulateV1", params)).error;
    assert.deepEqual(await error([TRANSFERS, "0x99"]), {
      code: -32000,
      message: "header not found",
    });
    assert.deepEqual(await error([{ blockStateCalls: [] }]), {
      code: -32602,
      message: "empty input",
    });
    assert.deepEqual(
      await error([
        {
          blockStateCalls: [
            { blockOverrides: { number: "0x40" } },
            { blockOverrides: { number: "0x40" } },
          ],
        },
      ]),
      { code: -38020, message: "block numbers must be in order: 64 <= 64" },
    );
    assert.deepEqual(
      await error([
        { blockStateCalls: [{ blockOverrides: { number: `0x${(0x36 + 257).toString(16)}` } }] },
      ]),
      { code: -38026, message: "too many blocks" },
    );
    assert.deepEqual(await error([{ blockStateCalls: [{ blockOverrides: { time: "0x1" } }] }]), {
      code: -38021,
      message: "block timestamps must be in order: 1 <= 540",
    });
    assert.deepEqual(
      await error([{ blockStateCalls: [{ calls: [{ from: A, to: B, value: "0x1" }] }] }]),
      {
        code: -38014,
        message: `err: insufficient funds for gas * price + value: address 0xC000000000000000000000000000000000000000 have 0 want 1 (supplied gas ${RPC_GAS_CAP})`,
      },
    );
    assert.deepEqual(
      await error([
        { blockStateCalls: [{ stateOverrides: { [A]: { state: {}, stateDiff: {} } } }] },
      ]),
      {
        code: -32000,
        message:
          "account 0xC000000000000000000000000000000000000000 has both 'state' and 'stateDiff'",
      },
    );
    // Fee styles conflict at execution (geth's CallDefaults), not when parsing.
    assert.deepEqual(
      await error([
        {
          blockStateCalls: [{ calls: [{ from: A, to: B, gasPrice: "0x1", maxFeePerGas: "0x1" }] }],
        },
      ]),
      {
        code: -32000,
        message: "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
      },
    );
    assert.deepEqual(await error([{ blockStateCalls: "x" }]), {
      code: -32602,
      message:
        "invalid argument 0: json: cannot unmarshal string into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock",
    });
  });
});

describe("eth_simulateV1 on dev", () => {
  let node: DevNode;
  before(async () => {
    node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  });
  after(async () => {
    await node?.close();
  });

  test("runs in the call worker on the pending block: a pre-confirmed nonce counts there only", async () => {
    const sender = node.accounts[1]!;
    const account = privateKeyToAccount(sender.privateKey as `0x${string}`);
    const raw = await account.signTransaction({
      chainId: Number(node.chainId),
      type: "eip1559",
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: 1n,
      to: node.accounts[2]!.address as `0x${string}`,
      value: 1n,
    });
    await call(node.dedicatedUrl, "eth_sendRawTransactionSync", [raw]);
    const opts = {
      blockStateCalls: [
        {
          calls: [
            {
              from: sender.address,
              to: node.accounts[3]!.address,
              value: "0x1",
              nonce: "0x1",
              maxFeePerGas: "0x4a817c800",
            },
          ],
        },
      ],
      validation: true,
    };
    const blocks = (await call(node.dedicatedUrl, "eth_simulateV1", [opts, "pending"])) as Block[];
    const head = Number(await call(node.dedicatedUrl, "eth_blockNumber"));
    assert.equal(Number(blocks[0]?.number), head + 2, "the block after the pending one");
    assert.equal(blocks[0]?.calls[0]?.status, "0x1");
    const atLatest = (await rpc(node.dedicatedUrl, {
      jsonrpc: "2.0",
      id: 1,
      method: "eth_simulateV1",
      params: [opts, "latest"],
    })) as { error: { code: number; message: string } };
    assert.equal(atLatest.error.code, -38011);
    assert.match(
      atLatest.error.message,
      /^err: nonce too high: address 0x[0-9a-fA-F]{40}, tx: 1 state: 0/,
    );
  });
});
