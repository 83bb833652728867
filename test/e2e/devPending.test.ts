// The pending view of `flashnode dev`: a pre-confirmed transaction is always visible (pending or
// latest, never neither), pending never resolves to null or an error, and the /flashblocks
// stream and subscriptions carry Base's format.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  flashblockFeed,
  pollUntil,
  setCalldata,
  signTransfer,
  startTestDevNode,
  storageContractBytecode,
} from "../utils/devChain.ts";
import { rpc } from "../utils/fixtures.ts";

const ZERO_HASH = `0x${"00".repeat(32)}`;
let node: DevNode;
type Rpc = { result?: unknown; error?: { code: number; message: string; data?: unknown } };
const call = async (method: string, params: unknown[] = []) =>
  (await rpc(node.dedicatedUrl, { jsonrpc: "2.0", id: 1, method, params })) as Rpc;

describe("pending view", () => {
  before(async () => {
    node = await startTestDevNode({ blockTimeMs: 1000, flashblockIntervalMs: 100 });
  });
  after(async () => {
    await node.close();
  });

  test("a pre-confirmed transaction never disappears across seals", async () => {
    const account = privateKeyToAccount(node.accounts[5]!.privateKey as `0x${string}`);
    const seen = new Set<string>();
    /** Blocks that sealed transactions of `seen`, as the polls saw their receipts. */
    const sealedIn = new Set<string>();
    let nonce = Number(
      (await call("eth_getTransactionCount", [account.address, "pending"])).result,
    );
    let polls = 0;
    // One round per flashblock (the node's 100 ms cadence paces the load), until transactions
    // were followed through four seals; the deadline only turns a stuck chain into a failure.
    const flashblocks = await flashblockFeed(node.wsUrl);
    const deadline = Date.now() + 120_000;
    while (sealedIn.size < 4 || seen.size < 10 || polls < 20) {
      assert.ok(
        Date.now() < deadline,
        `stuck: ${seen.size} transactions, ${sealedIn.size} seals, ${polls} polls`,
      );
      const raw = await signTransfer(node, 5, { nonce: nonce++, value: 1n });
      assert.ok((await call("eth_sendRawTransaction", [raw])).result);
      // One batch: the pending block, pending receipts and every receipt seen so far, at one instant.
      const hashes = [...seen];
      const batch = (await rpc(node.dedicatedUrl, [
        { jsonrpc: "2.0", id: 0, method: "eth_getBlockReceipts", params: ["pending"] },
        { jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: ["pending", false] },
        ...hashes.map((h, i) => ({
          jsonrpc: "2.0",
          id: i + 2,
          method: "eth_getTransactionReceipt",
          params: [h],
        })),
      ])) as Rpc[];
      polls++;
      const receipts = batch[0]!.result as Array<{ transactionHash: string }>;
      assert.ok(Array.isArray(receipts), "pending receipts are never null");
      assert.ok(
        batch[1]!.result !== null && batch[1]!.error === undefined,
        "pending block is never null",
      );
      for (const r of receipts) seen.add(r.transactionHash);
      batch.slice(2).forEach((r, i) => {
        assert.ok(r.result !== null, `pre-confirmed ${hashes[i]} is still visible (poll ${polls})`);
        const { blockHash, blockNumber } = r.result as { blockHash: string; blockNumber: string };
        if (blockHash !== ZERO_HASH) sealedIn.add(blockNumber);
      });
      await flashblocks.next();
    }
    flashblocks.close();
  });

  test("/flashblocks stream: Base wire format, index 0 carries base, indices in order", async () => {
    const ws = new WebSocket(`${node.wsUrl}flashblocks`);
    const messages: Array<
      Record<string, unknown> & { index: number; metadata: { block_number: number } }
    > = [];
    ws.on("message", (data) => messages.push(JSON.parse(data.toString())));
    await pollUntil(
      async () => messages.length,
      (n) => n >= 25,
      30_000,
      50,
    );
    ws.close();
    const firstZero = messages.findIndex((m) => m.index === 0);
    assert.ok(firstZero >= 0);
    for (let i = firstZero + 1; i < messages.length; i++) {
      const prev = messages[i - 1]!;
      const m = messages[i]!;
      if (m.index === 0) assert.equal(m.metadata.block_number, prev.metadata.block_number + 1);
      else assert.equal(m.index, prev.index + 1);
      assert.equal("base" in m, m.index === 0, "only index 0 carries base");
      assert.match(String(m.payload_id), /^0x[0-9a-f]{16}$/);
      const diff = m.diff as Record<string, unknown>;
      assert.equal(diff.state_root, `0x${"00".repeat(32)}`);
      for (const key of [
        "receipts_root",
        "logs_bloom",
        "gas_used",
        "block_hash",
        "transactions",
        "withdrawals",
      ]) {
        assert.ok(key in diff, `diff.${key}`);
      }
    }
  });

  test("eth_subscribe newHeads, newFlashblocks and logs over WebSocket", async () => {
    const ws = new WebSocket(node.wsUrl);
    await new Promise((r) => ws.once("open", r));
    const notes: Array<{ subscription: string; result: unknown }> = [];
    const replies = new Map<number, unknown>();
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString()) as {
        id?: number;
        result?: unknown;
        params?: { subscription: string; result: unknown };
      };
      if (msg.params !== undefined) notes.push(msg.params);
      else if (msg.id !== undefined) replies.set(msg.id, msg.result);
    });
    const request = async (id: number, method: string, params: unknown[]) => {
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return pollUntil(
        async () => replies.get(id),
        (v) => v !== undefined,
        30_000,
      );
    };
    const heads = (await request(1, "eth_subscribe", ["newHeads"])) as string;
    const flash = (await request(2, "eth_subscribe", ["newFlashblocks"])) as string;

    const account = privateKeyToAccount(node.accounts[6]!.privateKey as `0x${string}`);
    const topic = "0xdf7a95aebff315db1b7716215d602ab537373cdb769232aae6055c06e798425b";
    let nonce = Number(
      (await call("eth_getTransactionCount", [account.address, "pending"])).result,
    );
    const send = async (tx: Record<string, unknown>) =>
      (
        await call("eth_sendRawTransaction", [
          await account.signTransaction({
            chainId: Number(node.chainId),
            type: "eip1559",
            nonce: nonce++,
            gas: 200_000n,
            maxFeePerGas: parseGwei("20"),
            maxPriorityFeePerGas: 1n,
            ...tx,
          } as never),
        ])
      ).result as string;
    const deployHash = await send({ data: storageContractBytecode(topic) });
    const receipt = await pollUntil(
      async () =>
        (await call("eth_getTransactionReceipt", [deployHash])).result as {
          contractAddress: string;
        } | null,
      (r) => r !== null,
      30_000,
    );
    const logsSub = (await request(3, "eth_subscribe", [
      "logs",
      { address: receipt!.contractAddress, topics: [topic] },
    ])) as string;
    await send({ to: receipt!.contractAddress, data: setCalldata(77n) });
    await pollUntil(
      async () => notes.filter((n) => n.subscription === logsSub).length,
      (n) => n >= 1,
      30_000,
      50,
    );
    ws.close();
    const head = notes.find((n) => n.subscription === heads)!.result as {
      number: string;
      hash: string;
    };
    assert.match(head.hash, /^0x[0-9a-f]{64}$/);
    const fb = notes.find((n) => n.subscription === flash)!.result as {
      index: number;
      diff: unknown;
    };
    assert.equal(typeof fb.index, "number");
    const log = notes.find((n) => n.subscription === logsSub)!.result as {
      address: string;
      data: string;
      topics: string[];
    };
    assert.equal(log.address, receipt!.contractAddress);
    assert.equal(log.topics[0], topic);
    assert.equal(BigInt(log.data), 77n);
  });

  test("WebSocket tiers: the same policy as HTTP; unknown keys refused", async () => {
    const ask = (url: string, body: unknown) =>
      new Promise<{ error?: { code: number; message: string }; result?: unknown }>(
        (resolve, reject) => {
          const ws = new WebSocket(url);
          ws.once("error", reject);
          ws.once("open", () => ws.send(JSON.stringify(body)));
          ws.once("message", (data) => {
            ws.close();
            resolve(JSON.parse(data.toString()));
          });
        },
      );
    const request = { jsonrpc: "2.0", id: 1, method: "eth_getBlockReceipts", params: ["latest"] };
    assert.deepEqual((await ask(node.wsUrl, request)).error, {
      code: -32001,
      message: "rpc method is not whitelisted",
    });
    const dedicated = node.dedicatedUrl.replace(/^http/, "ws");
    assert.ok(Array.isArray((await ask(dedicated, request)).result));
    await assert.rejects(ask(`${node.wsUrl}rpc/unknown-key-00`, request), /401/);
  });

  test("eth_call and eth_estimateGas, latest and pending, with geth's revert errors", async () => {
    const from = node.accounts[7]!.address;
    const transfer = await call("eth_estimateGas", [
      { from, to: node.accounts[8]!.address, value: "0x1" },
    ]);
    assert.equal(transfer.result, "0x5208");
    // PUSH1 0 PUSH1 0 REVERT with a reason: Error("nope")
    const reason =
      "08c379a0" +
      "20".padStart(64, "0") +
      "4".padStart(64, "0") +
      Buffer.from("nope").toString("hex").padEnd(64, "0");
    const initcode = `0x7f${reason.slice(0, 64)}6000527f${reason.slice(64, 128)}6020527f${reason.slice(128, 192)}6040526064${"6000"}fd`;
    for (const tag of ["latest", "pending"]) {
      const r = await call("eth_call", [{ from, data: initcode }, tag]);
      assert.equal(r.error?.code, 3, JSON.stringify(r));
      assert.equal(r.error?.message, "execution reverted: nope");
      assert.equal(r.error?.data, `0x${reason}`);
      const e = await call("eth_estimateGas", [{ from, data: initcode }, tag]);
      assert.equal(e.error?.code, 3);
    }
    assert.equal(
      (await call("eth_call", [{ from, to: from }, "0x99999"])).error?.message,
      "header not found",
    );
  });

  test("metrics and readiness follow the sequencer", async () => {
    const metric = async (series: string): Promise<number> => {
      const text = await (await fetch(`${node.url}metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      assert.ok(line !== undefined, `${series} is exported`);
      return Number(line.slice(series.length + 1));
    };
    const account = privateKeyToAccount(node.accounts[6]!.privateKey as `0x${string}`);
    const nonce = Number(
      (await call("eth_getTransactionCount", [account.address, "pending"])).result,
    );
    for (let i = 0; i < 3; i++) {
      const raw = await signTransfer(node, 6, { nonce: nonce + i, value: 1n });
      assert.ok((await call("eth_sendRawTransaction", [raw])).result);
    }
    await pollUntil(
      async () =>
        Number((await call("eth_getTransactionCount", [account.address, "pending"])).result),
      (n) => n === nonce + 3,
    );
    // The test's clock is the node's (one process): a flashblock applied after this instant
    // makes the age at most the time since it.
    const t0 = performance.timeOrigin + performance.now();
    const flashblocks = await metric("flashnode_flashblocks_total");
    const head = await metric("flashnode_head_block_number");
    const pendingNumber = await metric("flashnode_pending_block_number");
    // A seal can land between the two scrapes: the pending block is the next one, or the one after.
    assert.ok(
      pendingNumber === head + 1 || pendingNumber === head + 2,
      `${pendingNumber} vs ${head}`,
    );
    assert.ok((await metric("flashnode_flashblock_age_seconds")) >= 0, "a flashblock applied");
    assert.ok((await metric("flashnode_flashblock_build_seconds_count")) > 0);
    assert.ok((await metric("flashnode_transactions_per_second")) > 0, "3 txs in the last 10 s");
    // Flashblocks keep coming, and the age restarts from each.
    await pollUntil(
      () => metric("flashnode_flashblocks_total"),
      (n) => n > flashblocks,
    );
    const age = await metric("flashnode_flashblock_age_seconds");
    const since = (performance.timeOrigin + performance.now() - t0) / 1000;
    assert.ok(age >= 0 && age <= since, `age ${age} s, a flashblock applied within ${since} s`);
    // Ready while flashblocks are fresh (a loaded machine may pause them past the 1 s limit:
    // readiness then rightly says stale, and says ready again with the next one).
    const ready = await pollUntil(
      async () => {
        const r = await fetch(`${node.url}readyz`);
        return { status: r.status, body: (await r.json()) as unknown };
      },
      (r) => r.status === 200,
    );
    assert.deepEqual(ready.body, { ready: true, reasons: [] });
  });
});
