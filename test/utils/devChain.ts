// A `flashnode dev` node for end-to-end tests, and a tiny contract to exercise it.
import { parseGwei } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import WebSocket from "ws";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import type { RunningNode } from "../../src/node/plan.ts";
import { call, tempDatadir } from "./fixtures.ts";
import {
  DEFAULT_DEV_OPTIONS,
  type FollowNodeOptions,
  startDevNode,
  startFollowNode,
  type TestDevOptions,
} from "./nodes.ts";
import { silentLogger, testFrontendOptions } from "./options.ts";
import { within } from "./within.ts";

/** A running `flashnode dev` (any running node: one assembly). */
export type DevNode = RunningNode;

export async function startTestDevNode(overrides: Partial<TestDevOptions> = {}): Promise<DevNode> {
  return startDevNode({
    ...DEFAULT_DEV_OPTIONS,
    datadir: tempDatadir("dev"),
    fresh: false,
    frontend: testFrontendOptions(),
    logger: silentLogger,
    genesis: undefined,
    ...overrides,
  });
}

/**
 * `flashnode follow` of the dev node `sequencer` (its RPC and its /flashblocks), quiet, into a
 * new datadir named after `label`; `more` sets the rest (another RPC, NATS, the hardfork).
 */
export function startTestFollower(
  sequencer: DevNode,
  label: string,
  more: Partial<FollowNodeOptions> = {},
): Promise<RunningNode> {
  return startFollowNode({
    datadir: tempDatadir(label),
    rpc: sequencer.url,
    flashblocks: `${sequencer.wsUrl}flashblocks`,
    frontend: testFrontendOptions(),
    logger: silentLogger,
    ...more,
  });
}

/**
 * A storage contract in raw bytecode (no compiler needed): the constructor stores 42 in slot 0;
 * a call with calldata stores calldata[4:36] in slot 0 and logs it with topic
 * keccak256("Set(uint256)"); a call without calldata returns slot 0.
 */
export function storageContractBytecode(setTopic: string): `0x${string}` {
  const topic = setTopic.slice(2);
  const runtime = `3615603657600435806000556000527f${topic}60206000a1005b60005460005260206000f3`;
  const length = (runtime.length / 2).toString(16).padStart(2, "0");
  const init = `602a60005560${length}601160003960${length}6000f3`;
  return `0x${init}${runtime}`;
}

/**
 * Deploys the storage contract (its Set topic `setTopic`) from `account` on the node at `url`;
 * its address, once the deployment is pre-confirmed.
 */
export async function deployStorageContract(
  url: string,
  account: PrivateKeyAccount,
  setTopic: string,
): Promise<`0x${string}`> {
  const data = storageContractBytecode(setTopic);
  const raw = await signAtPendingNonce(url, account, { data, gas: 300_000n });
  const receipt = (await call(url, "eth_sendRawTransactionSync", [raw])) as {
    contractAddress: `0x${string}`;
  };
  return receipt.contractAddress;
}

/** Calldata for "set(uint256)" as the contract reads it (any 4-byte selector works). */
export function setCalldata(value: bigint): `0x${string}` {
  return `0x60fe47b1${value.toString(16).padStart(64, "0")}`;
}

export function word(value: bigint): string {
  return `0x${value.toString(16).padStart(64, "0")}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `read` until `done(value)`, every `everyMs`. `timeoutMs` is a failure deadline only,
 * generous (the machine may be loaded): nothing waits it out when the condition comes.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 30_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms (last: ${String(v)})`);
    await sleep(everyMs);
  }
}

/** Dev account `i` (of the dev chain's prefunded ones) as a viem signer. */
export function devSigner(i = 0): PrivateKeyAccount {
  return privateKeyToAccount(devAccounts(i + 1)[i]!.privateKey as `0x${string}`);
}

/** `raws` sent to `url` as one JSON-RPC batch of eth_sendRawTransaction; its answers, in order. */
export async function sendRawBatch(
  url: string,
  raws: readonly string[],
): Promise<{ result?: unknown; error?: { code: number; message: string } }[]> {
  const batch = raws.map((raw, id) => ({
    jsonrpc: "2.0",
    id,
    method: "eth_sendRawTransaction",
    params: [raw],
  }));
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(batch),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } }[];
}

/** Until `node`'s pending block holds transaction `hash`. */
export async function pendingHolds(node: DevNode, hash: string): Promise<void> {
  await pollUntil(
    async () =>
      (await call(node.dedicatedUrl, "eth_getBlockReceipts", ["pending"])) as {
        transactionHash: string;
      }[],
    (rs) => rs.some((r) => r.transactionHash === hash),
    30_000,
  );
}

/** What a test transaction sets; the rest is fixed: EIP-1559, a 100 gwei fee cap, a 1 wei tip. */
export type TestTx = {
  readonly chainId: number;
  readonly nonce: number;
  readonly gas: bigint;
  readonly to?: `0x${string}`;
  readonly data?: `0x${string}`;
  readonly value?: bigint;
};

/** `tx` signed by `account`. */
export function signTestTx(account: PrivateKeyAccount, tx: TestTx): Promise<`0x${string}`> {
  return account.signTransaction({
    chainId: tx.chainId,
    type: "eip1559",
    nonce: tx.nonce,
    gas: tx.gas,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 1n,
    ...(tx.to === undefined ? {} : { to: tx.to }),
    ...(tx.data === undefined ? {} : { data: tx.data }),
    ...(tx.value === undefined ? {} : { value: tx.value }),
  });
}

/**
 * `tx` signed by `account` at its pending nonce on the node at `url`, for that node's chain
 * unless `chainId` says (a node whose upstream is failing is not asked more than the nonce).
 */
export async function signAtPendingNonce(
  url: string,
  account: PrivateKeyAccount,
  tx: Omit<TestTx, "chainId" | "nonce"> & { readonly chainId?: number },
): Promise<`0x${string}`> {
  const chainId = tx.chainId ?? Number(await call(url, "eth_chainId"));
  const nonce = Number(await call(url, "eth_getTransactionCount", [account.address, "pending"]));
  return signTestTx(account, { ...tx, chainId, nonce });
}

/** A signed EIP-1559 transfer (21,000 gas, 20 gwei cap) from dev account `from`; to itself by default. */
export async function signTransfer(
  node: DevNode,
  from: number,
  tx: { nonce: number; to?: string; value?: bigint; maxPriorityFeePerGas?: bigint },
): Promise<`0x${string}`> {
  const account = privateKeyToAccount(node.accounts[from]!.privateKey as `0x${string}`);
  return account.signTransaction({
    chainId: Number(node.chainId),
    type: "eip1559",
    nonce: tx.nonce,
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 1n,
    to: (tx.to ?? account.address) as `0x${string}`,
    value: tx.value ?? 0n,
  });
}

/** The node's `/flashblocks` stream, read one message at a time. */
export type FlashblockFeed = {
  /** The next flashblock (parsed Base wire JSON), waiting for it if none is queued. */
  next(): Promise<{ index: number; metadata: { block_number: number } }>;
  close(): void;
};

/** Opens `${wsUrl}flashblocks`: a test waits for flashblocks instead of for time to pass. */
export async function flashblockFeed(wsUrl: string): Promise<FlashblockFeed> {
  type Message = Awaited<ReturnType<FlashblockFeed["next"]>>;
  const ws = new WebSocket(`${wsUrl}flashblocks`);
  const queue: Message[] = [];
  const waiting: ((m: Message) => void)[] = [];
  ws.on("message", (data: Buffer) => {
    const m = JSON.parse(data.toString()) as Message;
    const w = waiting.shift();
    if (w === undefined) queue.push(m);
    else w(m);
  });
  await within(
    new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    }),
    "the /flashblocks stream's opening",
  );
  return {
    next() {
      const m = queue.shift();
      if (m !== undefined) return Promise.resolve(m);
      return within(new Promise((resolve) => waiting.push(resolve)), "a flashblock");
    },
    close: () => ws.close(),
  };
}

/** Polls `eth_blockNumber` at `url` until it reaches `n`; the number it showed. */
export async function waitForBlock(url: string, n: number, timeoutMs = 60_000): Promise<number> {
  return pollUntil(
    async () => Number(await call(url, "eth_blockNumber")),
    (head) => head >= n,
    timeoutMs,
  );
}
