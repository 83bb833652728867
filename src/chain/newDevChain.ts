// The genesis of a new `flashnode dev` chain: the test accounts funded, and Base's predeploys on
// an OP-stack chain (their fee vaults' constructors run in an EVM). Made by the sequencer's
// thread, and only when its datadir holds no chain yet: a restart never pays for it.

import { hexToBytes } from "../util/hex.ts";
import { type DevFork, devAccounts, devGenesis } from "./devGenesis.ts";
import { type DevL1Config, devL1Values } from "./op/l1Info.ts";
import { opPredeploys } from "./op/predeploys.ts";

/** What shapes a new dev chain (the flags of `flashnode dev`). */
export type NewDevChain = {
  readonly chainId: bigint;
  readonly fork: DevFork;
  /** Plain Ethereum (`--ethereum`); by default an OP-stack chain. */
  readonly ethereum: boolean;
  readonly l1: DevL1Config;
  readonly gasLimit: bigint;
  readonly accounts: number;
  readonly balanceEth: bigint;
};

export async function newDevGenesis(o: NewDevChain): Promise<Record<string, unknown>> {
  const accounts = devAccounts(o.accounts);
  const timestamp = BigInt(Math.floor(Date.now() / 1000));
  return devGenesis({
    chainId: o.chainId,
    fork: o.fork,
    accounts,
    balanceWei: o.balanceEth * 10n ** 18n,
    gasLimit: o.gasLimit,
    timestamp,
    ...(o.ethereum
      ? {}
      : {
          op: await opPredeploys(
            devL1Values(o.l1, timestamp),
            hexToBytes(accounts[0]?.address ?? `0x${"00".repeat(20)}`),
          ),
        }),
  });
}
