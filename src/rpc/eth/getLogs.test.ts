import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { call, rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";

type Log = { address: string; topics: string[]; blockNumber: string; logIndex: string };
let server: RunningServer;
/** Every log of the fixture chain, from the receipts, in chain order. */
const all: Log[] = [];
let head = 0;

async function getLogs(filter: unknown): Promise<Log[]> {
  return (await call(server.dedicatedUrl, "eth_getLogs", [filter])) as Log[];
}

async function logsError(filter: unknown): Promise<{ code: number; message: string }> {
  const r = (await rpc(server.dedicatedUrl, {
    jsonrpc: "2.0",
    id: 1,
    method: "eth_getLogs",
    params: [filter],
  })) as { error?: { code: number; message: string } };
  assert.ok(r.error !== undefined, `an error for ${JSON.stringify(filter)}`);
  return r.error;
}

describe("eth_getLogs", () => {
  before(async () => {
    server = await fixtureServer("getLogs");
    head = Number(await call(server.dedicatedUrl, "eth_blockNumber"));
    for (let n = 0; n <= head; n++) {
      const receipts = (await call(server.dedicatedUrl, "eth_getBlockReceipts", [
        `0x${n.toString(16)}`,
      ])) as Array<{ logs: Log[] }>;
      for (const r of receipts) all.push(...r.logs);
    }
    assert.ok(all.length > 10, `the fixture chain has logs (${all.length})`);
  });
  after(async () => {
    await server.close();
  });

  test("the whole chain's logs are every receipt's logs, in order", async () => {
    assert.deepEqual(await getLogs({ fromBlock: "earliest", toBlock: "latest" }), all);
    assert.deepEqual(await getLogs({ fromBlock: "0x0" }), all);
    // No bounds: latest only.
    const last = `0x${head.toString(16)}`;
    assert.deepEqual(
      await getLogs({}),
      all.filter((l) => l.blockNumber === last),
    );
  });

  test("by address and by topic, through the index, equal a scan of the receipts", async () => {
    const addresses = [...new Set(all.map((l) => l.address))];
    for (const address of addresses) {
      const want = all.filter((l) => l.address === address);
      assert.deepEqual(await getLogs({ fromBlock: "0x0", address }), want, address);
      assert.deepEqual(
        await getLogs({ fromBlock: "0x0", address: [address.toUpperCase().replace("0X", "0x")] }),
        want,
      );
    }
    const firstTopics = [...new Set(all.map((l) => l.topics[0]).filter((t) => t !== undefined))];
    for (const topic of firstTopics.slice(0, 5)) {
      const want = all.filter((l) => l.topics[0] === topic);
      assert.deepEqual(await getLogs({ fromBlock: "0x0", topics: [topic] }), want);
      // The same topic in the second position matches only logs that have it there.
      assert.deepEqual(
        await getLogs({ fromBlock: "0x0", topics: [null, topic] }),
        all.filter((l) => l.topics[1] === topic),
      );
    }
    // OR within a position, AND with an address; a narrower block range.
    const [a, b] = firstTopics as [string, string];
    const from = 3;
    const to = Math.min(head, 20);
    const inRange = (l: Log) => Number(l.blockNumber) >= from && Number(l.blockNumber) <= to;
    assert.deepEqual(
      await getLogs({
        fromBlock: `0x${from.toString(16)}`,
        toBlock: `0x${to.toString(16)}`,
        address: addresses,
        topics: [[a, b]],
      }),
      all.filter((l) => inRange(l) && (l.topics[0] === a || l.topics[0] === b)),
    );
    // A topic no log has: nothing.
    assert.deepEqual(await getLogs({ fromBlock: "0x0", topics: [`0x${"ab".repeat(32)}`] }), []);
  });

  test("by block hash", async () => {
    const withLogs = Number(all[0]!.blockNumber);
    const block = (await call(server.dedicatedUrl, "eth_getBlockByNumber", [
      `0x${withLogs.toString(16)}`,
      false,
    ])) as { hash: string };
    assert.deepEqual(
      await getLogs({ blockHash: block.hash }),
      all.filter((l) => Number(l.blockNumber) === withLogs),
    );
  });

  test("geth's errors", async () => {
    const beyond = `0x${(head + 1).toString(16)}`;
    assert.deepEqual(await logsError({ fromBlock: "0x2", toBlock: "0x1" }), {
      code: -32602,
      message: "invalid block range params",
    });
    assert.deepEqual(await logsError({ fromBlock: "0x1", toBlock: beyond }), {
      code: -32602,
      message: "block range extends beyond current head block",
    });
    assert.deepEqual(await logsError({ blockHash: `0x${"11".repeat(32)}` }), {
      code: -32000,
      message: "unknown block",
    });
    assert.deepEqual(await logsError({ blockHash: `0x${"11".repeat(32)}`, fromBlock: "0x1" }), {
      code: -32602,
      message:
        "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
    });
    assert.deepEqual(await logsError({ topics: [null, null, null, null, null] }), {
      code: -32602,
      message: "invalid argument 0: exceed max topics",
    });
    assert.deepEqual(await logsError({ address: "0x1234" }), {
      code: -32602,
      message:
        "invalid argument 0: invalid address: hex has invalid length 2 after decoding; expected 20 for address",
    });
    assert.deepEqual(await logsError({ topics: [5] }), {
      code: -32602,
      message: "invalid argument 0: invalid topic(s)",
    });
    assert.deepEqual(await logsError("latest"), {
      code: -32602,
      message:
        "invalid argument 0: json: cannot unmarshal string into Go value of type filters.input",
    });
    const many = Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`);
    assert.deepEqual(await logsError({ address: many }), {
      code: -32000,
      message: "exceed max addresses or topics per search position",
    });
  });
});
