// Correctness probes after the fuzz: the node must still answer right (chain id, rising blocks,
// balances, a real signed transfer, WebSocket), not merely still be running.
import { keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { Rng } from "./cases/rng.ts";
import type { CaseEnv } from "./cases/types.ts";
import type { NodeProcess } from "./nodeProcess.ts";
import { rpc, type Target } from "./target.ts";
import { isObject, sleep } from "./util.ts";

export type Probe = { name: string; ok: boolean; detail: string };

async function probe(name: string, run: () => Promise<string>): Promise<Probe> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (e) {
    return { name, ok: false, detail: e instanceof Error ? e.message : String(e) };
  }
}

const hexNum = (v: unknown, what: string): bigint => {
  if (typeof v !== "string" || !/^0x(0|[1-9a-f][0-9a-f]*)$/.test(v))
    throw new Error(`${what}: bad quantity ${JSON.stringify(v)}`);
  return BigInt(v);
};

export async function runProbes(
  target: Target,
  env: CaseEnv,
  seed: number,
  node: NodeProcess,
): Promise<Probe[]> {
  const probes: Probe[] = [];
  let chainId = 0n;
  probes.push(
    await probe("eth_chainId", async () => {
      chainId = hexNum(await rpc(target, "/", "eth_chainId", []), "eth_chainId");
      if (node.child !== undefined && chainId !== 31337n)
        throw new Error(`chain id ${chainId}, expected 31337`);
      return `${chainId}`;
    }),
  );
  probes.push(
    await probe("eth_blockNumber increases", async () => {
      const first = hexNum(await rpc(target, "/", "eth_blockNumber", []), "eth_blockNumber");
      const deadline = Date.now() + 10_000;
      for (;;) {
        const now = hexNum(await rpc(target, "/", "eth_blockNumber", []), "eth_blockNumber");
        if (now > first) return `${first} → ${now}`;
        if (Date.now() > deadline) throw new Error(`stuck at ${first} for 10 s`);
        await sleep(100);
      }
    }),
  );
  const accounts = devAccounts(10);
  const sender = accounts[9]!;
  probes.push(
    await probe("eth_getBalance of a dev account", async () => {
      const b = hexNum(
        await rpc(target, "/", "eth_getBalance", [accounts[0]!.address, "latest"]),
        "balance",
      );
      if (b === 0n) throw new Error(`${accounts[0]!.address} has no balance`);
      return `${accounts[0]!.address}: ${b / 10n ** 18n} ETH`;
    }),
  );
  const via = env.dedicatedPath ?? "/";
  probes.push(
    await probe(
      env.dedicatedPath === undefined
        ? "signed transfer → eth_getTransactionReceipt (POST /)"
        : 'signed transfer → eth_getBlockReceipts("pending") (dedicated)',
      async () => {
        const to = `0x${new Rng(seed, 0x7fffffff).hex(20)}` as const;
        const value = 1_000_000_007n;
        const nonce = hexNum(
          await rpc(target, via, "eth_getTransactionCount", [sender.address, "pending"]),
          "nonce",
        );
        const block = await rpc(target, via, "eth_getBlockByNumber", ["pending", false]);
        const baseFee = isObject(block)
          ? hexNum(block.baseFeePerGas, "baseFeePerGas")
          : 1_000_000_000n;
        const tip = 1_000_000_000n;
        const raw = await privateKeyToAccount(sender.privateKey as `0x${string}`).signTransaction({
          chainId: Number(chainId),
          type: "eip1559",
          to,
          value,
          nonce: Number(nonce),
          gas: 21_000n,
          maxFeePerGas: baseFee * 2n + tip,
          maxPriorityFeePerGas: tip,
        });
        const hash = await rpc(target, via, "eth_sendRawTransaction", [raw]);
        if (hash !== keccak256(raw))
          throw new Error(`eth_sendRawTransaction answered ${JSON.stringify(hash)}`);
        const started = Date.now();
        let receipt: Record<string, unknown> | undefined;
        let where = "";
        while (receipt === undefined && Date.now() - started < 10_000) {
          if (env.dedicatedPath !== undefined) {
            const list = await rpc(target, via, "eth_getBlockReceipts", ["pending"]);
            if (Array.isArray(list))
              receipt = list.find((r) => isObject(r) && r.transactionHash === hash);
            where = "pending receipts";
          } else {
            const r = await rpc(target, "/", "eth_getTransactionReceipt", [hash]);
            if (isObject(r)) receipt = r;
            where = "eth_getTransactionReceipt";
          }
          if (receipt === undefined) await sleep(20);
        }
        if (receipt === undefined) throw new Error(`${hash} not in ${where} after 10 s`);
        if (receipt.status !== "0x1") throw new Error(`receipt status ${String(receipt.status)}`);
        if (
          String(receipt.from).toLowerCase() !== sender.address.toLowerCase() ||
          receipt.to !== to
        )
          throw new Error(`receipt from/to ${String(receipt.from)} → ${String(receipt.to)}`);
        const got = hexNum(await rpc(target, via, "eth_getBalance", [to, "pending"]), "balance");
        if (got !== value) throw new Error(`recipient balance ${got}, expected ${value}`);
        return `${hash.slice(0, 18)}… in ${where} after ${Date.now() - started} ms; recipient balance ${got} wei`;
      },
    ),
  );
  probes.push(
    await probe("WebSocket eth_chainId", async () => {
      const ws = new WebSocket(new URL("/", target.url), { perMessageDeflate: false });
      try {
        const answer = await new Promise<string>((ok, fail) => {
          const t = setTimeout(() => fail(new Error("no answer in 10 s")), 10_000);
          ws.on("error", fail);
          ws.on("open", () => ws.send('{"jsonrpc":"2.0","id":7,"method":"eth_chainId"}'));
          ws.on("message", (d: Buffer) => {
            clearTimeout(t);
            ok(d.toString("utf8"));
          });
        });
        const v = JSON.parse(answer) as unknown;
        if (!isObject(v) || v.id !== 7 || hexNum(v.result, "result") !== chainId)
          throw new Error(answer);
        return answer;
      } finally {
        ws.terminate();
      }
    }),
  );
  if (node.child !== undefined)
    probes.push({
      name: "node process alive",
      ok: node.child.exited === undefined,
      detail: node.child.exited ?? `pid ${node.child.proc.pid}`,
    });
  return probes;
}
