// SIGKILL `flashnode dev` at random points while a steady client sends transactions, and check
// after every restart that nothing sealed changed and nothing pre-confirmed was lost.
import type { ChildProcess } from "node:child_process";
import { privateKeyToAccount } from "viem/accounts";
import { startDevChild } from "../../bench/lib/devChain.ts";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { tempDatadir } from "./fixtures.ts";

export type CrashReport = {
  kills: number;
  restarts: number;
  blocksChecked: number;
  preconfirmationsChecked: number;
  lost: number;
  problems: string[];
};

type Rpc = { result?: unknown; error?: { message: string } };
const KEY = "crash-test-key";

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as Rpc;
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function start(datadir: string): Promise<{ child: ChildProcess; url: string }> {
  const flags = ["--api-key", KEY, "--rate-limit", "0", "--log-level", "warn"];
  const timing = ["--block-time", "1s", "--flashblock-interval", "100ms"];
  const { child, url } = await startDevChild([...flags, ...timing], datadir);
  return { child, url: `${url}rpc/${KEY}` };
}

/** A whole number in [min, max], at random. */
const randomIn = ([min, max]: readonly [number, number]) =>
  min + Math.floor(Math.random() * (max - min + 1));

export async function runCrashTest(opts: {
  kills: number;
  /**
   * When each kill comes, counted in events (a loaded machine only makes it later): once
   * `seals` blocks were sealed since the restart, after `sends` more transactions (each drawn
   * at random in its range): mid-block, with sends in flight.
   */
  killAfter: { seals: readonly [number, number]; sends: readonly [number, number] };
  log?: (line: string) => void;
}): Promise<CrashReport> {
  const datadir = tempDatadir("crash");
  const senders = devAccounts(3).map((a) => privateKeyToAccount(a.privateKey as `0x${string}`));
  const sealed = new Map<number, string>(); // number → hash
  const sealedTxs = new Map<number, string[]>();
  const preconfirmed = new Map<
    string,
    { block: number; index: number; from: string; nonce: number }
  >();
  const report: CrashReport = {
    kills: 0,
    restarts: 0,
    blocksChecked: 0,
    preconfirmationsChecked: 0,
    lost: 0,
    problems: [],
  };
  const problem = (p: string) => {
    report.problems.push(p);
    opts.log?.(`PROBLEM: ${p}`);
  };

  for (let round = 0; round <= opts.kills; round++) {
    const { child, url } = await start(datadir);
    if (round > 0) report.restarts++;
    // ---- after a restart: nothing sealed changed, nothing pre-confirmed lost -------------------
    const head = Number(await rpc(url, "eth_blockNumber"));
    for (const [n, hash] of sealed) {
      const block = (await rpc(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as {
        hash: string;
        transactions: string[];
      } | null;
      if (block?.hash !== hash) problem(`block ${n} changed: ${hash} → ${block?.hash}`);
      else if (JSON.stringify(block.transactions) !== JSON.stringify(sealedTxs.get(n)))
        problem(`block ${n} transactions changed`);
      report.blocksChecked++;
    }
    if (sealed.size > 0 && head < Math.max(...sealed.keys())) problem(`head went back to ${head}`);
    for (const [hash, where] of preconfirmed) {
      const r = (await rpc(url, "eth_getTransactionReceipt", [hash])) as {
        blockNumber: string;
        transactionIndex: string;
      } | null;
      report.preconfirmationsChecked++;
      if (r === null) {
        report.lost++;
        problem(`pre-confirmed ${hash} (block ${where.block} #${where.index}) is gone`);
      } else if (
        Number(r.blockNumber) !== where.block ||
        Number(r.transactionIndex) !== where.index
      ) {
        problem(
          `pre-confirmed ${hash} moved from block ${where.block} #${where.index} to ${Number(r.blockNumber)} #${Number(r.transactionIndex)}`,
        );
      }
    }
    // No nonce skipped or reused among pre-confirmed transactions.
    for (const s of senders) {
      const nonces = [...preconfirmed.values()]
        .filter((p) => p.from === s.address.toLowerCase())
        .map((p) => p.nonce)
        .sort((a, b) => a - b);
      nonces.forEach((n, i) => {
        if (n !== i) problem(`${s.address}: pre-confirmed nonces not contiguous at ${i}: ${n}`);
      });
    }
    if (round === opts.kills) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      break;
    }

    // ---- a steady client until the kill -------------------------------------------------------
    const sealsDue = head + randomIn(opts.killAfter.seals);
    let sendsLeft = randomIn(opts.killAfter.sends);
    let top = head;
    // Only a node that stopped sealing gets here: said, rather than a run that never ends.
    const deadline = Date.now() + 120_000;
    const nonces = await Promise.all(
      senders.map(async (s) =>
        Number(await rpc(url, "eth_getTransactionCount", [s.address, "pending"])),
      ),
    );
    let i = 0;
    try {
      for (;;) {
        if (top >= sealsDue && sendsLeft-- === 0) break;
        if (Date.now() > deadline) {
          problem(`round ${round}: no block ${sealsDue} within 120 s (head ${top})`);
          break;
        }
        const k = i++ % senders.length;
        const raw = await senders[k]!.signTransaction({
          chainId: 31337,
          type: "eip1559",
          nonce: nonces[k]!,
          gas: 21000n,
          maxFeePerGas: 50_000_000_000n,
          maxPriorityFeePerGas: 1n,
          to: senders[(k + 1) % senders.length]!.address,
          value: 1n,
        });
        await rpc(url, "eth_sendRawTransaction", [raw]);
        nonces[k]!++;
        // What the node has promised so far.
        const pending = (await rpc(url, "eth_getBlockReceipts", ["pending"])) as Array<{
          transactionHash: string;
          blockNumber: string;
          transactionIndex: string;
          from: string;
        }>;
        for (const r of pending) {
          if (!preconfirmed.has(r.transactionHash)) {
            const tx = (await rpc(url, "eth_getTransactionByHash", [r.transactionHash])) as {
              nonce: string;
            };
            preconfirmed.set(r.transactionHash, {
              block: Number(r.blockNumber),
              index: Number(r.transactionIndex),
              from: r.from,
              nonce: Number(tx.nonce),
            });
          }
        }
        top = Number(await rpc(url, "eth_blockNumber"));
        for (let n = 1; n <= top; n++) {
          if (sealed.has(n)) continue;
          const b = (await rpc(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])) as {
            hash: string;
            transactions: string[];
          };
          sealed.set(n, b.hash);
          sealedTxs.set(n, b.transactions);
          for (const [index, h] of b.transactions.entries()) {
            const tx = (await rpc(url, "eth_getTransactionByHash", [h])) as {
              from: string;
              nonce: string;
            };
            if (!preconfirmed.has(h))
              preconfirmed.set(h, { block: n, index, from: tx.from, nonce: Number(tx.nonce) });
          }
        }
      }
    } catch {
      // A send racing the kill below is fine: the next round re-reads the nonces.
    }
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    report.kills++;
    opts.log?.(
      `kill ${report.kills}: ${sealed.size} sealed blocks, ${preconfirmed.size} pre-confirmed transactions so far`,
    );
  }
  return report;
}
