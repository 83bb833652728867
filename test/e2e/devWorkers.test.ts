// `flashnode dev --rpc-workers 2`: two reader processes follow the one sequencer. Whichever
// answers, the answers are the same (pending included), the pending view never goes backwards
// for a client, transactions, subscriptions and /flashblocks work through every reader, and a
// killed reader is replaced by one that shows the same pending block at once.
import assert from "node:assert/strict";
import { type Agent, request } from "node:http";
import { after, before, test } from "node:test";
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { type CliNode, SEALS_ON_MINE, startReadersNode } from "../utils/cliNode.ts";
import { pollUntil } from "../utils/devChain.ts";
import { tempDatadir } from "../utils/fixtures.ts";
import { stopChild } from "../utils/processes.ts";
import {
  assertPendingMonotonic,
  readerAgents,
  readerPids,
  rpcOn,
  waitForListeningReaders,
  waitForReplacement,
} from "../utils/readers.ts";

const KEY = "dev-workers-test-key";
type PendingTxs = { transactions: string[] };
const CHAIN_ID = 31337;
let primary: CliNode;
const accounts = devAccounts(4);

before(async () => {
  primary = await startReadersNode("dev", tempDatadir("dev-workers"), KEY, SEALS_ON_MINE);
});

after(async () => {
  await stopChild(primary?.child);
});

const agents = readerAgents();

function rpc(agent: Agent | undefined, method: string, params: unknown[]): Promise<unknown> {
  return rpcOn(primary.dedicatedUrl, agent, method, params);
}

function readers(): number[] {
  return readerPids(primary.child.pid!);
}

async function transfer(from: number, nonce: number): Promise<`0x${string}`> {
  const account = privateKeyToAccount(accounts[from]!.privateKey as `0x${string}`);
  return account.signTransaction({
    chainId: CHAIN_ID,
    type: "eip1559",
    nonce,
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    to: accounts[(from + 1) % accounts.length]!.address as `0x${string}`,
    value: 1000n + BigInt(nonce),
  });
}

const nonces = [0, 0, 0, 0];

/** Sends through a new connection each time, so the two readers take turns. */
async function send(from: number): Promise<string> {
  const raw = await transfer(from, nonces[from]!);
  nonces[from]!++;
  return (await rpc(undefined, "eth_sendRawTransaction", [raw])) as string;
}

test("two readers serve the node", async () => {
  const pids = await pollUntil(
    async () => readers(),
    (p) => p.length === 2,
    30_000,
    100,
  ).catch(() => readers());
  assert.equal(pids.length, 2, `reader processes: ${pids.join(" ")}\n${primary.output()}`);
  assert.doesNotMatch(primary.output(), /reader exited/, "no reader died while starting");
});

test("transactions sent through either reader are pre-confirmed, then sealed", async () => {
  const hashes: string[] = [];
  for (let i = 0; i < 6; i++) hashes.push(await send(i % 2));
  for (const hash of hashes) {
    for (const agent of agents) {
      const receipt = (await pollUntil(
        () => rpc(agent, "eth_getTransactionReceipt", [hash]),
        (r) => r !== null,
        30_000,
      )) as { status: string };
      assert.equal(receipt.status, "0x1");
    }
  }
  // A nonce the pool holds is known to both readers at once.
  const raw = await transfer(2, nonces[2]!);
  nonces[2]!++;
  await rpc(agents[0], "eth_sendRawTransaction", [raw]);
  for (const agent of agents)
    assert.equal(
      await rpc(agent, "eth_getTransactionCount", [accounts[2]!.address, "pending"]),
      "0x1",
    );
  const mined = (await rpc(agents[1], "evm_mine", [])) as string;
  assert.equal(mined, "0x0");
  for (const agent of agents) {
    const receipt = (await rpc(agent, "eth_getTransactionReceipt", [hashes[0]])) as {
      blockHash: string;
    };
    assert.notEqual(receipt.blockHash, `0x${"0".repeat(64)}`, "sealed");
  }
});

/** GET over `agent` (pinned to one reader): status and content type. */
function getOn(agent: Agent, path: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, primary.url), { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve([res.statusCode ?? 0, String(res.headers["content-type"])]));
    });
    req.on("error", reject);
    req.end();
  });
}

test("every reader serves the live page and the sequencer's pre-confirmation times", async () => {
  const hash = await send(0);
  for (const agent of agents) {
    assert.deepEqual(await getOn(agent, "/ui"), [200, "text/html; charset=utf-8"]);
    assert.deepEqual(await getOn(agent, "/ui/app.js"), [200, "text/javascript; charset=utf-8"]);
    // The intake time travels with the stream: each reader has the sequencer's figure.
    const times = (await pollUntil(
      () => rpc(agent, "flashnode_getTransactionTimes", [hash]),
      (t) => t !== null,
      30_000,
    )) as { receivedAt: number; preconfirmedAt: number; preconfirmLatencyMs: number };
    assert.ok(times.receivedAt > 0 && times.preconfirmedAt >= times.receivedAt);
    // Each figure is rounded to 0.1 ms on its own.
    const latency = times.preconfirmedAt - times.receivedAt;
    assert.ok(Math.abs(times.preconfirmLatencyMs - latency) < 0.15, `${times.preconfirmLatencyMs}`);
  }
});

test("both readers answer alike at every selector, pending included", async () => {
  const sent: string[] = [];
  for (let i = 0; i < 3; i++) sent.push(await send(3));
  // Both readers show them pending (blocks seal only on evm_mine: nothing moves after that).
  for (const agent of agents)
    await pollUntil(
      async () => (await rpc(agent, "eth_getBlockByNumber", ["pending", false])) as PendingTxs,
      (b) => sent.every((h) => b.transactions.includes(h)),
    );
  const head = Number(await rpc(agents[0], "eth_blockNumber", []));
  const selectors = [
    "latest",
    "pending",
    "earliest",
    "safe",
    "finalized",
    "0x0",
    `0x${head.toString(16)}`,
  ];
  const calls: Array<[string, unknown[]]> = [];
  for (const s of selectors) {
    for (const a of accounts) {
      calls.push(["eth_getBalance", [a.address, s]]);
      calls.push(["eth_getTransactionCount", [a.address, s]]);
    }
    calls.push(["eth_getStorageAt", [accounts[0]!.address, "0x0", s]]);
    calls.push(["eth_getBlockReceipts", [s]]);
    calls.push(["eth_getBlockByNumber", [s, true]]);
  }
  for (const [method, params] of calls) {
    const [a, b] = await Promise.all(agents.map((agent) => rpc(agent, method, params)));
    assert.deepEqual(a, b, `${method} ${JSON.stringify(params)}`);
  }
  const pending = (await rpc(agents[1], "eth_getBlockReceipts", ["pending"])) as unknown[];
  assert.ok(pending.length >= 3, "the pending block holds the transactions just sent");
});

test("the pending view never goes backwards, whichever reader answers", async () => {
  let sending = true;
  let mines = 0;
  const sender = (async () => {
    let n = 0;
    while (sending) {
      await send(n % 4);
      if (++n % 15 === 0) {
        await rpc(undefined, "evm_mine", []);
        mines++;
      }
    }
    return n;
  })();
  // [block number, transactions] as each answer showed it; reads alternate between the readers,
  // while transactions arrive and across three seals.
  const { reads, first, last } = await assertPendingMonotonic(
    (i) => rpc(agents[i % 2], "eth_getBlockByNumber", ["pending", false]),
    (n) => n >= 50 && mines >= 3,
  );
  sending = false;
  const sent = await sender;
  assert.ok(
    last - first >= 2,
    `${reads} reads saw pending go from ${first} to ${last} (${sent} transactions sent)`,
  );
});

test("subscriptions and /flashblocks from every reader", async () => {
  const sockets: WebSocket[] = [];
  const counts: number[] = [];
  const heads: number[] = [];
  const subscribed: boolean[] = [];
  for (let i = 0; i < 4; i++) {
    const fb = new WebSocket(`${primary.url.replace(/^http/, "ws")}flashblocks`);
    const sub = new WebSocket(`${primary.url.replace(/^http/, "ws")}rpc/${KEY}`);
    counts.push(0);
    heads.push(0);
    fb.on("message", () => {
      counts[i]!++;
    });
    sub.on("open", () =>
      sub.send(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }),
      ),
    );
    sub.on("message", (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { method?: string; id?: number };
      if (m.method === "eth_subscription") heads[i]!++;
      else if (m.id === 1) subscribed[i] = true;
    });
    sockets.push(fb, sub);
  }
  // Every stream delivers, and every subscription was confirmed before the seal.
  await pollUntil(
    async () => counts.every((c) => c >= 3) && [0, 1, 2, 3].every((i) => subscribed[i]),
    (ok) => ok,
  );
  await rpc(undefined, "evm_mine", []);
  await pollUntil(
    async () => heads.every((h) => h >= 1),
    (ok) => ok,
  );
  for (const s of sockets) s.close();
});

test("a killed reader is replaced, and shows the pending block at once", async () => {
  const sent = [await send(0), await send(1)];
  // Both pre-confirmed before the kill.
  await pollUntil(
    async () => (await rpc(undefined, "eth_getBlockByNumber", ["pending", false])) as PendingTxs,
    (b) => sent.every((h) => b.transactions.includes(h)),
  );
  const before = readers();
  process.kill(before[0]!, "SIGKILL");
  const now = await waitForReplacement(primary.child.pid!, before[0]!, 2, 30_000);
  assert.equal(now.length, 2, "two readers again");
  // Once the replacement listens, fresh connections reach both readers.
  await waitForListeningReaders(primary.dedicatedUrl, 2);
  const answers = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const block = (await rpc(undefined, "eth_getBlockByNumber", ["pending", false])) as {
      number: string;
      transactions: string[];
    };
    answers.add(`${block.number}:${block.transactions.join(",")}`);
  }
  assert.equal(answers.size, 1, `readers disagree on pending: ${[...answers].join(" | ")}`);
  assert.ok([...answers][0]!.includes(","), "the pending block holds the two transactions");
});

test("filters answer through any reader, whichever holds them", async () => {
  // Fresh connections take turns between the readers (once a replacement from the test before
  // listens): install until both hold a filter.
  const ids = new Map<string, string>();
  for (const deadline = Date.now() + 30_000; ids.size < 2 && Date.now() < deadline; ) {
    const id = (await rpc(undefined, "eth_newBlockFilter", [])) as string;
    // A filter id's first byte names the reader holding it.
    if (!ids.has(id.slice(0, 4))) ids.set(id.slice(0, 4), id);
  }
  assert.equal(ids.size, 2, `filters held by two readers: ${[...ids.values()].join(" ")}`);
  const pidsBefore = readers().sort();
  const txs = (await rpc(undefined, "eth_newPendingTransactionFilter", [])) as string;
  const hash = await send(0);
  // evm_mine is answered once every reader has the block: their filters hold it now.
  await rpc(undefined, "evm_mine", []);
  // Polled through fresh connections: each filter is read through both readers in turn, and
  // always found (a poll of a filter the other reader holds is answered by the holder).
  for (const id of ids.values()) {
    const seen: string[] = [];
    for (let i = 0; i < 4; i++)
      seen.push(...((await rpc(undefined, "eth_getFilterChanges", [id])) as string[]));
    assert.equal(seen.length, 1, `one sealed block's hash (${seen.join(" ")})`);
    assert.match(seen[0]!, /^0x[0-9a-f]{64}$/);
  }
  const pending: string[] = [];
  for (let i = 0; i < 4; i++)
    pending.push(...((await rpc(undefined, "eth_getFilterChanges", [txs])) as string[]));
  assert.ok(pending.includes(hash), "the pre-confirmed transaction");
  const logs = (await rpc(undefined, "eth_newFilter", [{ fromBlock: "0x0" }])) as string;
  for (let i = 0; i < 2; i++)
    assert.ok(Array.isArray(await rpc(undefined, "eth_getFilterLogs", [logs])));
  const [first] = ids.values();
  assert.equal(await rpc(undefined, "eth_uninstallFilter", [first]), true);
  for (let i = 0; i < 2; i++) {
    await assert.rejects(rpc(undefined, "eth_getFilterChanges", [first]), /filter not found/);
    assert.equal(await rpc(undefined, "eth_uninstallFilter", [first]), false);
  }
  // An unknown filter answered by another reader than the asker's is an error, not a crash.
  assert.deepEqual(readers().sort(), pidsBefore, "no reader died");
  assert.doesNotMatch(primary.output(), /filter not found\n\s+at /, "no uncaught error in the log");
});
