// anvil (the devDependency) as a real upstream chain, seeded with a contract holding storage and
// some history, forked at a past block while it moves on.
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { join } from "node:path";
import { asm, deployCode } from "./evmAsm.ts";
import { ROOT } from "./fixtures.ts";
import { type RpcProxy, startRpcProxy } from "./rpcProxy.ts";

const ANVIL = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");

/** anvil's first dev account (unlocked: eth_sendTransaction signs for it). */
export const ANVIL_SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
/** An account that only ever receives value. */
export const RECEIVER = "0x1000000000000000000000000000000000000001";

/**
 * A store contract: calldata (slot ‖ value) stores value at slot and logs LOG1(topic = slot,
 * data = value); empty calldata does nothing.
 */
const STORE_RUNTIME = asm([
  "CALLDATASIZE",
  "ISZERO",
  "@end",
  "JUMPI",
  "0x20",
  "CALLDATALOAD",
  "0x00",
  "CALLDATALOAD",
  "SSTORE",
  "0x20",
  "CALLDATALOAD",
  "0x00",
  "MSTORE",
  "0x00",
  "CALLDATALOAD",
  "0x20",
  "0x00",
  "LOG1",
  "end:",
  "JUMPDEST",
  "STOP",
]);

export type Anvil = {
  readonly url: string;
  readonly child: ChildProcess;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): void;
};

/**
 * anvil on a port of its own choosing (`--port 0`, read from its "Listening on" line: a port
 * picked beforehand can be taken by another test file before anvil binds it). It is killed
 * when the test process exits, and does not keep that process alive if a test forgets it.
 */
export async function startAnvilUpstream(extra: string[] = []): Promise<Anvil> {
  const child = spawn(ANVIL, ["--port", "0", ...extra], { stdio: ["ignore", "pipe", "ignore"] });
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.unref();
  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(
        () => reject(new Error(`anvil did not listen within 60 s:\n${out}`)),
        60_000,
      );
      child.once("exit", (code) => reject(new Error(`anvil exited (${code}):\n${out}`)));
      const onData = (c: Buffer) => {
        out += c.toString();
        const port = /Listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        if (port === undefined) return;
        clearTimeout(timer);
        // Its per-request log lines are read and dropped from here on: a full pipe would stall it.
        child.stdout.off("data", onData);
        child.stdout.resume();
        resolve(`http://127.0.0.1:${port}/`);
      };
      child.stdout.on("data", onData);
    });
  } catch (e) {
    kill();
    throw e;
  }
  (child.stdout as Socket).unref();
  let id = 0;
  return {
    url,
    child,
    async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      });
      const body = (await res.json()) as { result?: T; error?: { message: string } };
      if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
      return body.result as T;
    },
    stop() {
      process.off("exit", kill);
      kill();
    },
  };
}

export function word(n: bigint): string {
  return `0x${n.toString(16).padStart(64, "0")}`;
}

export type SeededChain = {
  readonly contract: string;
  /** The fork block, after the seed and before the chain moved on. */
  readonly fork: { readonly number: bigint; readonly hash: string };
  /** Slots the contract holds at F (slot 1…5 = 100…500). */
  readonly slots: readonly bigint[];
  /** Transactions mined at or below F. */
  readonly txs: readonly string[];
};

/** Sends and waits for the receipt: anvil mines in a task of its own, after it answers. */
async function send(anvil: Anvil, tx: Record<string, string>): Promise<string> {
  const hash = await anvil.rpc<string>("eth_sendTransaction", [{ from: ANVIL_SENDER, ...tx }]);
  await mined(anvil, hash);
  return hash;
}

/** The receipt of `hash`, once anvil has mined it (failing after a generous 30 s). */
export async function mined<T = { contractAddress: string | null }>(
  anvil: Anvil,
  hash: string,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const receipt = await anvil.rpc<T | null>("eth_getTransactionReceipt", [hash]);
    if (receipt !== null) return receipt;
    if (Date.now() > deadline) throw new Error(`anvil did not mine ${hash} within 30 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Deploys the store contract, writes slots 1–5 and pays RECEIVER: F is the block after. */
export async function seedChain(anvil: Anvil): Promise<SeededChain> {
  const deploy = await send(anvil, { data: deployCode(STORE_RUNTIME) });
  const contract = (await mined(anvil, deploy)).contractAddress!;
  const txs = [deploy];
  for (let slot = 1n; slot <= 5n; slot++)
    txs.push(await send(anvil, { to: contract, data: word(slot) + word(slot * 100n).slice(2) }));
  txs.push(await send(anvil, { to: RECEIVER, value: "0xde0b6b3a7640000" }));
  const head = await anvil.rpc<{ number: string; hash: string }>("eth_getBlockByNumber", [
    "latest",
    false,
  ]);
  return {
    contract,
    fork: { number: BigInt(head.number), hash: head.hash },
    slots: [1n, 2n, 3n, 4n, 5n],
    txs,
  };
}

/** The chain moves on past F: slots and balances change, a new slot appears. */
export async function moveOn(anvil: Anvil, chain: SeededChain): Promise<void> {
  await send(anvil, { to: chain.contract, data: word(1n) + word(999n).slice(2) });
  await send(anvil, { to: chain.contract, data: word(6n) + word(6n).slice(2) });
  await send(anvil, { to: RECEIVER, value: "0x1" });
}

/** A seeded anvil behind a proxy that counts (and fails on demand) what a fork asks it. */
export type ProxiedUpstream = {
  readonly anvil: Anvil;
  readonly chain: SeededChain;
  readonly proxy: RpcProxy;
  stop(): Promise<void>;
};

/** anvil, seeded (and moved on past the fork block when `movedOn`), behind a proxy. */
export async function startProxiedUpstream(
  opts: { readonly movedOn?: boolean } = {},
): Promise<ProxiedUpstream> {
  const anvil = await startAnvilUpstream();
  try {
    const chain = await seedChain(anvil);
    if (opts.movedOn === true) await moveOn(anvil, chain);
    const proxy = await startRpcProxy(anvil.url);
    return {
      anvil,
      chain,
      proxy,
      async stop() {
        await proxy.close();
        anvil.stop();
      },
    };
  } catch (err) {
    anvil.stop();
    throw err;
  }
}
