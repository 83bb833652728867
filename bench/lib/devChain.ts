// Shared by the benchmarks: a `flashnode dev` child process on a fresh datadir, and signed
// transfers between the dev accounts.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Common } from "@ethereumjs/common";
import { createTx } from "@ethereumjs/tx";
import { type DevAccount, devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { bytesToHex, hexToBytes } from "../../src/util/hex.ts";
import { waitForOutput } from "./http.ts";

export const BIN = join(resolve(import.meta.dirname, "../.."), "bin/flashnode.js");

/**
 * Starts `flashnode dev` on port 0 (a new datadir unless given); resolves with the public base
 * URL. `bin` is another checkout's bin/flashnode.js (a bench of an older commit); `cpus` places
 * the process and every thread it starts (taskset -c); `nodeFlags` go to node before the script.
 */
export async function startDevChild(
  args: readonly string[],
  datadir = mkdtempSync(join(tmpdir(), "flashnode-bench-")),
  opts: {
    readonly bin?: string;
    readonly cpus?: string;
    /** Node's own flags before the script (e.g. --cpu-prof). */
    readonly nodeFlags?: readonly string[];
  } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const argv = [
    ...(opts.nodeFlags ?? []),
    opts.bin ?? BIN,
    "dev",
    "--datadir",
    datadir,
    "--port",
    "0",
    ...args,
  ];
  const child =
    opts.cpus === undefined
      ? spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] })
      : spawn("taskset", ["-c", opts.cpus, process.execPath, ...argv], {
          stdio: ["ignore", "pipe", "pipe"],
        });
  return { child, url: await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/) };
}

export type TransferSigner = {
  readonly accounts: readonly DevAccount[];
  readonly common: Common;
  /** A signed 1-wei transfer from account `from` to the next one, at `nonce` (2718 hex). */
  transfer(from: number, nonce: number): string;
};

/** Signs transfers among the first `count` dev accounts (chain id 31337, fee cap 50 gwei). */
export async function transferSigner(count: number): Promise<TransferSigner> {
  const accounts = devAccounts(count);
  const spec = await chainSpecFromGenesis(
    devGenesis({
      chainId: 31337n,
      fork: "osaka",
      accounts,
      balanceWei: 1n,
      gasLimit: 1n,
      timestamp: 0n,
    }),
  );
  return {
    accounts,
    common: spec.common,
    transfer(from, nonce) {
      const tx = createTx(
        {
          type: 2,
          chainId: 31337n,
          nonce: BigInt(nonce),
          to: accounts[(from + 1) % count]!.address as `0x${string}`,
          value: 1n,
          gasLimit: 21000n,
          maxFeePerGas: 50_000_000_000n,
          maxPriorityFeePerGas: 1n,
        },
        { common: spec.common },
      ).sign(hexToBytes(accounts[from]!.privateKey));
      return bytesToHex(tx.serialize());
    },
  };
}
