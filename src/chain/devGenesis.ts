// The genesis of `flashnode dev`: every fork from block 0 up to the chosen one, the standard
// test-mnemonic accounts prefunded, and the system contracts Cancun/Prague need (EIP-4788,
// EIP-2935, EIP-7002, EIP-7251), whose canonical bytecode is read from the bundled
// execution-apis genesis.
import { createHmac, pbkdf2Sync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { addPrivateKeys, keccak256, publicKeyOf } from "../util/crypto.ts";
import { bytesToHex } from "../util/hex.ts";
import { PACKAGE_ROOT } from "../util/packageRoot.ts";
import type { Eip1559Params } from "./op/knownChains.ts";

export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
export const DEV_FORKS = ["cancun", "prague", "osaka"] as const;
export type DevFork = (typeof DEV_FORKS)[number];

const SAMPLE_GENESIS = join(PACKAGE_ROOT, "fixtures/execution-apis/genesis.json");
const SYSTEM_CONTRACTS = [
  "000f3df6d732807ef1319fb7b8bb8522d0beac02", // EIP-4788 beacon roots
  "0000f90827f1c53a10cb7a02335b175320002935", // EIP-2935 block hashes
  "00000961ef480eb55e80d19ad83579a64c007002", // EIP-7002 withdrawal requests
  "0000bbddc7ce488642fb579f8b00f3a590007251", // EIP-7251 consolidations
];

/** A dev chain's EIP-1559 parameters on an OP-stack chain (its headers do not carry them). */
const DEV_OP_EIP1559: Eip1559Params = { elasticity: 2, denominator: 8 };

/**
 * A genesis `config`: every fork before Shanghai at block 0, `times` for Shanghai on, the blob
 * schedule of each fork up to `hardfork`, and on an OP-stack chain (`op`) op-geth's keys: the OP
 * forks whose execution rules are implemented, and the chain's EIP-1559 parameters.
 */
export function genesisConfig(o: {
  readonly chainId: bigint;
  readonly times: Readonly<Record<string, number>>;
  readonly hardfork: DevFork;
  readonly blobSchedule: Readonly<Record<string, unknown>>;
  readonly op?: Eip1559Params;
}): Record<string, unknown> {
  const blobSchedule: Record<string, unknown> = {};
  for (const f of DEV_FORKS.slice(0, DEV_FORKS.indexOf(o.hardfork) + 1))
    blobSchedule[f] = o.blobSchedule[f];
  return {
    chainId: Number(o.chainId),
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    mergeNetsplitBlock: 0,
    terminalTotalDifficulty: 0,
    ...o.times,
    depositContractAddress: "0x0000000000000000000000000000000000000000",
    blobSchedule,
    ...(o.op === undefined
      ? {}
      : {
          bedrockBlock: 0,
          regolithTime: 0,
          canyonTime: 0,
          deltaTime: 0,
          ecotoneTime: 0,
          fjordTime: 0,
          optimism: {
            eip1559Elasticity: o.op.elasticity,
            eip1559Denominator: o.op.denominator,
            eip1559DenominatorCanyon: o.op.denominator,
          },
        }),
  };
}

/** The bundled sample genesis's blob schedule of each fork (their EIP-7840 defaults). */
export function sampleBlobSchedule(): Readonly<Record<string, unknown>> {
  const sample = JSON.parse(readFileSync(SAMPLE_GENESIS, "utf8")) as {
    config: { blobSchedule: Record<string, unknown> };
  };
  return sample.config.blobSchedule;
}

/** The system contracts' addresses (unprefixed) and canonical runtime code, from the sample. */
export function systemContracts(): ReadonlyMap<string, string> {
  const sample = JSON.parse(readFileSync(SAMPLE_GENESIS, "utf8")) as {
    alloc: Record<string, { code?: string }>;
  };
  const out = new Map<string, string>();
  for (const address of SYSTEM_CONTRACTS) {
    const code = sample.alloc[address]?.code;
    if (code === undefined) throw new Error(`bundled genesis lacks system contract ${address}`);
    out.set(address, code);
  }
  return out;
}

export type DevAccount = { readonly address: string; readonly privateKey: string };

/** Derived accounts by mnemonic: every thread and process derives them, some more than once. */
const derived = new Map<string, DevAccount[]>();

/**
 * The first `count` accounts of the mnemonic, at m/44'/60'/0'/0/i (as anvil and hardhat do):
 * BIP-39's seed and BIP-32's derivation on native crypto (node:crypto, the secp256k1 binding),
 * ~100x faster than in JavaScript, which cost a start a quarter of a second per thread.
 */
export function devAccounts(count: number, mnemonic = DEV_MNEMONIC): DevAccount[] {
  const known = derived.get(mnemonic) ?? [];
  if (known.length < count) {
    const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
    let node = hdNode(createHmac("sha512", "Bitcoin seed").update(seed).digest());
    for (const index of [44 + HARDENED, 60 + HARDENED, HARDENED, 0]) node = childNode(node, index);
    for (let i = known.length; i < count; i++) {
      const key = childNode(node, i).key;
      const address = keccak256(publicKeyOf(key, false).subarray(1)).subarray(12);
      known.push({ address: bytesToHex(address), privateKey: bytesToHex(key) });
    }
    derived.set(mnemonic, known);
  }
  return known.slice(0, count);
}

const HARDENED = 0x80000000;

type HdNode = { readonly key: Uint8Array; readonly chainCode: Uint8Array };

function hdNode(i: Buffer): HdNode {
  return { key: Uint8Array.from(i.subarray(0, 32)), chainCode: Uint8Array.from(i.subarray(32)) };
}

/** BIP-32 CKDpriv: a hardened child from the private key, a normal one from the public key. */
function childNode(parent: HdNode, index: number): HdNode {
  const data = Buffer.alloc(37);
  if (index >= HARDENED) data.set(parent.key, 1);
  else data.set(publicKeyOf(parent.key, true), 0);
  data.writeUInt32BE(index, 33);
  const i = hdNode(createHmac("sha512", parent.chainCode).update(data).digest());
  return { key: addPrivateKeys(parent.key, i.key), chainCode: i.chainCode };
}

export type DevGenesisOptions = {
  /** An OP-stack chain (Base's execution rules through Fjord) with these predeploys. */
  readonly op?: Readonly<
    Record<string, { balance: string; code: string; storage?: Record<string, string> }>
  >;
  readonly chainId: bigint;
  readonly fork: DevFork;
  readonly accounts: readonly DevAccount[];
  readonly balanceWei: bigint;
  readonly gasLimit: bigint;
  readonly timestamp: bigint;
};

export function devGenesis(opts: DevGenesisOptions): Record<string, unknown> {
  const sample = JSON.parse(readFileSync(SAMPLE_GENESIS, "utf8")) as {
    alloc: Record<string, { code: string; balance: string }>;
    config: { blobSchedule: Record<string, unknown> };
  };
  const alloc: Record<
    string,
    { balance: string; code?: string; storage?: Record<string, string> }
  > = { ...opts.op };
  for (const address of SYSTEM_CONTRACTS) {
    const code = sample.alloc[address]?.code;
    if (code === undefined) throw new Error(`bundled genesis lacks system contract ${address}`);
    alloc[address] = { balance: "0x0", code };
  }
  for (const account of opts.accounts)
    alloc[account.address.slice(2)] = { balance: `0x${opts.balanceWei.toString(16)}` };
  const forkIndex = DEV_FORKS.indexOf(opts.fork);
  const times: Record<string, number> = { shanghaiTime: 0, cancunTime: 0 };
  if (forkIndex >= 1) times.pragueTime = 0;
  if (forkIndex >= 2) times.osakaTime = 0;
  return {
    config: genesisConfig({
      chainId: opts.chainId,
      times,
      hardfork: opts.fork,
      blobSchedule: sample.config.blobSchedule,
      ...(opts.op === undefined ? {} : { op: DEV_OP_EIP1559 }),
    }),
    nonce: "0x0",
    timestamp: `0x${opts.timestamp.toString(16)}`,
    extraData: "0x",
    gasLimit: `0x${opts.gasLimit.toString(16)}`,
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    baseFeePerGas: "0x3b9aca00",
    alloc,
  };
}
