// A fork whose upstream fails while it builds blocks (issue 30, item 1): every block's seal reads
// the upstream (the system contracts' ring-buffer slots it overwrites), and a transaction may read
// state not fetched yet. A failure there once left the block half-sealed ("Block has already been
// built" at every tick, for good) and dropped the transaction. Now the block stays open and
// pre-confirming, /readyz says why, and once the upstream answers again blocks seal and the
// transaction runs, once.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { upstreamOptions } from "../../src/upstream/options.ts";
import { type ProxiedUpstream, startProxiedUpstream, word } from "../utils/anvilUpstream.ts";
import {
  devSigner,
  pollUntil,
  signAtPendingNonce,
  signTestTx,
  startTestDevNode,
} from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";

let upstream: ProxiedUpstream;
let node: RunningNode;
const account = devSigner();

/** An error page in place of every eth_getStorageAt, counted. */
function failStorageReads(): { readonly count: () => number } {
  let n = 0;
  upstream.proxy.fault = ({ calls }) => {
    if (!calls.some((c) => c.method === "eth_getStorageAt")) return undefined;
    n++;
    return { status: 502, body: "<html><title>502 Bad Gateway</title></html>" };
  };
  return { count: () => n };
}

async function readyz(): Promise<{ status: number; reasons: string[] }> {
  const res = await fetch(`${node.url}readyz`);
  const body = (await res.json()) as { reasons?: string[] };
  return { status: res.status, reasons: body.reasons ?? [] };
}

const head = async () => Number(await call(node.url, "eth_blockNumber"));

before(async () => {
  upstream = await startProxiedUpstream();
  node = await startTestDevNode({
    datadir: tempDatadir("fork-faults"),
    blockTimeMs: 1000,
    upstream: {
      // No retries: a fault fails a read at once.
      options: upstreamOptions(upstream.proxy.url, { retries: 0, deadlineMs: 5_000 }),
      blockNumber: upstream.chain.fork.number,
    },
  });
});

after(async () => {
  if (upstream !== undefined) upstream.proxy.fault = undefined;
  await node?.close();
  await upstream?.stop();
});

test("a seal whose upstream read fails waits, says why, and seals once the upstream answers", async () => {
  const start = await head();
  await pollUntil(head, (n) => n >= start + 2);
  const faults = failStorageReads();
  try {
    // The next block's seal cannot read what it overwrites: /readyz says so.
    const notReady = await pollUntil(readyz, (r) => r.status === 503, 30_000, 100);
    assert.ok(faults.count() > 0);
    assert.match(notReady.reasons.join("; "), /not sealed .*waiting for the upstream .*502/);
  } finally {
    upstream.proxy.fault = undefined;
  }
  const stuck = await head();
  // Back: blocks seal again, and a transaction is mined.
  await pollUntil(head, (n) => n >= stuck + 2, 30_000, 50);
  await pollUntil(readyz, (r) => r.status === 200, 30_000, 100);
  const raw = await signAtPendingNonce(node.url, account, {
    chainId: 31337,
    gas: 21_000n,
    to: account.address,
  });
  const receipt = (await call(node.url, "eth_sendRawTransactionSync", [raw])) as {
    status: string;
  };
  assert.equal(receipt.status, "0x1");
});

test("a transaction whose run needs an upstream read that fails waits for it and runs once", async () => {
  const faults = failStorageReads();
  let hash: string;
  try {
    // A slot never read before: its SSTORE reads the upstream's value at F.
    const nonce = Number(
      await call(node.url, "eth_getTransactionCount", [account.address, "pending"]),
    );
    const raw = await signTestTx(account, {
      chainId: 31337,
      nonce,
      gas: 100_000n,
      to: upstream.chain.contract as `0x${string}`,
      data: `${word(77n)}${word(7n).slice(2)}` as `0x${string}`,
    });
    hash = String(await call(node.url, "eth_sendRawTransaction", [raw]));
    await pollUntil(
      async () => faults.count(),
      (n) => n >= 2,
      30_000,
      50,
    );
    assert.equal(await call(node.url, "eth_getTransactionReceipt", [hash]), null);
  } finally {
    upstream.proxy.fault = undefined;
  }
  const receipt = await pollUntil(
    () => call(node.url, "eth_getTransactionReceipt", [hash]),
    (r) => r !== null,
    30_000,
    50,
  );
  assert.equal((receipt as { status: string }).status, "0x1");
  // Pre-confirmed, then sealed: in one block, once.
  const block = (await pollUntil(
    () =>
      call(node.url, "eth_getBlockByNumber", [
        (receipt as { blockNumber: string }).blockNumber,
        false,
      ]),
    (b) => b !== null,
    30_000,
    50,
  )) as { transactions: string[] };
  assert.equal(block.transactions.filter((t) => t === hash).length, 1);
  assert.equal(
    BigInt(
      String(
        await call(node.url, "eth_getStorageAt", [upstream.chain.contract, word(77n), "latest"]),
      ),
    ),
    7n,
  );
});

test("automine: a block whose seal cannot read the upstream is mined once it answers, each transaction once", async () => {
  const auto = await startTestDevNode({
    datadir: tempDatadir("fork-faults-automine"),
    automine: true,
    upstream: {
      options: upstreamOptions(upstream.proxy.url, { retries: 0, deadlineMs: 5_000 }),
      blockNumber: upstream.chain.fork.number,
    },
  });
  const sender = devSigner(1);
  const send = async (nonce: number) =>
    String(
      await call(auto.url, "eth_sendRawTransaction", [
        await signTestTx(sender, { chainId: 31337, nonce, gas: 21_000n, to: sender.address }),
      ]),
    );
  try {
    const faults = failStorageReads();
    const hashes: string[] = [];
    try {
      // The second block's seal reads slots its opening could not fetch: accepted, not mined.
      hashes.push(await send(0), await send(1));
      await pollUntil(
        async () => faults.count(),
        (n) => n >= 1,
        30_000,
        50,
      );
    } finally {
      upstream.proxy.fault = undefined;
    }
    for (const hash of hashes) {
      const receipt = (await pollUntil(
        () => call(auto.url, "eth_getTransactionReceipt", [hash]),
        (r) => r !== null,
        30_000,
        50,
      )) as { status: string; blockNumber: string };
      assert.equal(receipt.status, "0x1");
      const block = (await call(auto.url, "eth_getBlockByNumber", [
        receipt.blockNumber,
        false,
      ])) as { transactions: string[] };
      assert.deepEqual(block.transactions, [hash], "a block of its own, once");
    }
    assert.equal(
      Number(await call(auto.url, "eth_getTransactionCount", [sender.address, "latest"])),
      2,
    );
  } finally {
    await auto.close();
  }
});
