// A `flashnode dev` sequencer and a `flashnode follow` of it, each a process started as users
// start them, for tests that do to the upstream what happens to real ones: pause it (SIGSTOP),
// kill it, restart it on its datadir or anew, on the port the follower knows. With what such
// tests ask: /readyz, the follower's log lines, a flow of transactions that survives the
// upstream's outages, and the two chains compared block by block.
import assert from "node:assert/strict";
import { keccak256 } from "viem";
import { devSigner, pollUntil, signTestTx, sleep } from "./devChain.ts";
import { call } from "./fixtures.ts";
import { type RpcProcess, startCli } from "./processes.ts";

/** Both nodes serve it at /rpc/<key>: eth_getBlockReceipts is refused on the public tier. */
export const KEY = "chaos-test-key-0001";

export function dedicated(node: RpcProcess): string {
  return `${node.url}rpc/${KEY}`;
}

/** `flashnode dev` on `port`, 200-ms flashblocks in blocks of `blockTime` (default 1 s). */
export function startSequencer(o: {
  readonly datadir: string;
  readonly port: number;
  readonly fresh?: boolean;
  readonly blockTime?: string;
}): Promise<RpcProcess> {
  return startCli(
    [
      "dev",
      "--datadir",
      o.datadir,
      "--block-time",
      o.blockTime ?? "1s",
      "--api-key",
      KEY,
      ...(o.fresh === true ? ["--fresh"] : []),
    ],
    { port: o.port },
  );
}

/** `flashnode follow` of the sequencer on `port`, with every other flag at its default. */
export function startFollower(o: {
  readonly datadir: string;
  readonly upstreamPort: number;
  readonly fresh?: boolean;
}): Promise<RpcProcess> {
  return startCli([
    "follow",
    "--rpc",
    `http://127.0.0.1:${o.upstreamPort}/`,
    "--flashblocks",
    `ws://127.0.0.1:${o.upstreamPort}/flashblocks`,
    "--datadir",
    o.datadir,
    "--api-key",
    KEY,
    ...(o.fresh === true ? ["--fresh"] : []),
  ]);
}

export type Readyz = { readonly ready: boolean; readonly reasons: readonly string[] };

export async function readyz(node: RpcProcess): Promise<Readyz> {
  const res = await fetch(`${node.url}readyz`, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as Readyz;
  assert.equal(res.status === 200, body.ready, "/readyz's status says what its body says");
  return body;
}

export async function head(url: string): Promise<number> {
  return Number(await call(url, "eth_blockNumber"));
}

/** The follower's log lines (JSON) whose message matches `re`. */
export function logLines(node: RpcProcess, re: RegExp): string[] {
  return node
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{") && re.test((JSON.parse(l) as { msg?: string }).msg ?? ""));
}

/** Polls until `done`, failing after `ms` with `what`. */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  ms = 60_000,
): Promise<T> {
  try {
    return await pollUntil(read, done, ms, 25);
  } catch (e) {
    throw new Error(`waiting for ${what}: ${(e as Error).message}`);
  }
}

const alice = devSigner();
const BOB = "0x00000000000000000000000000000000000b0b01";

/**
 * Transfers from one dev account, one after another, to whichever sequencer `url()` names at the
 * time. A send that fails (the sequencer paused or gone) is not given up: once the sequencer
 * answers again, its pending nonce says what it holds, and what it lost is sent again, in order.
 */
export class TxFlow {
  /** Every transaction signed, by nonce: one per nonce, sent again as it is. */
  readonly raw: `0x${string}`[] = [];
  /** Their hashes, by nonce. */
  readonly hashes: string[] = [];
  /** Sends the sequencer answered with a hash. */
  accepted = 0;
  #running = true;
  readonly #done: Promise<void>;

  constructor(
    private readonly url: () => string,
    private readonly chainId: number,
  ) {
    this.#done = this.#run();
  }

  async #sign(nonce: number): Promise<void> {
    const raw = await signTestTx(alice, {
      chainId: this.chainId,
      nonce,
      to: BOB,
      value: BigInt(nonce + 1),
      gas: 21_000n,
    });
    this.raw.push(raw);
    this.hashes.push(keccak256(raw));
  }

  async #run(): Promise<void> {
    while (this.#running) {
      try {
        let nonce = Number(
          await callWithin(this.url(), "eth_getTransactionCount", [alice.address, "pending"]),
        );
        while (this.#running) {
          while (this.raw.length <= nonce) await this.#sign(this.raw.length);
          await callWithin(this.url(), "eth_sendRawTransaction", [this.raw[nonce]]);
          this.accepted++;
          nonce++;
          // The flow's pace: ten transactions a second.
          await sleep(100);
        }
      } catch {
        // Paused, gone, or refusing what it already holds: ask its nonce again shortly.
        await sleep(100);
      }
    }
  }

  /** Stops sending. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }

  get sender(): string {
    return alice.address;
  }
}

/** A JSON-RPC call that fails after 2 s instead of waiting on a paused node. */
async function callWithin(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(2_000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

type Block = { hash: string; transactions: { hash: string }[] };

/**
 * Blocks `from`..`to` and their receipts are the same on both nodes; every transaction is in
 * exactly one of them. Returns the transactions' hashes in chain order.
 */
export async function assertSameChain(
  sequencer: string,
  follower: string,
  from: number,
  to: number,
): Promise<string[]> {
  const seen: string[] = [];
  for (let n = from; n <= to; n++) {
    const id = `0x${n.toString(16)}`;
    const theirs = (await call(sequencer, "eth_getBlockByNumber", [id, true])) as Block;
    assert.deepEqual(
      await call(follower, "eth_getBlockByNumber", [id, true]),
      theirs,
      `block ${n}`,
    );
    assert.deepEqual(
      await call(follower, "eth_getBlockReceipts", [id]),
      await call(sequencer, "eth_getBlockReceipts", [id]),
      `receipts of block ${n}`,
    );
    seen.push(...theirs.transactions.map((t) => t.hash));
  }
  assert.equal(new Set(seen).size, seen.length, "no transaction in two blocks");
  return seen;
}
