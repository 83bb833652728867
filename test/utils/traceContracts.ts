// Two contracts for the tracing tests, in raw bytecode, and a dev-chain sender for them.
//
// Callee: empty calldata → revert Error("nope"); else store calldata[0:32] in slot 0, LOG1 the
// word + 1 (topic 0xaa), return the word + 1.
// Caller (calldata: the callee's address): CALLs the callee with the word 5 (ok), CALLs it with
// no calldata (reverts), STATICCALLs it with 5 (its SSTORE fails: a write in a static call),
// then returns what the first call returned.
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { asm, deployCode } from "./evmAsm.ts";
import { call } from "./fixtures.ts";

export const CALLEE = asm([
  "CALLDATASIZE",
  "@ok",
  "JUMPI",
  "0x08c379a0",
  "0xe0",
  "SHL",
  "0x00",
  "MSTORE",
  "0x20",
  "0x04",
  "MSTORE",
  "0x04",
  "0x24",
  "MSTORE",
  "0x6e6f7065",
  "0xe0",
  "SHL",
  "0x44",
  "MSTORE",
  "0x64",
  "0x00",
  "REVERT",
  "ok:",
  "JUMPDEST",
  "0x00",
  "CALLDATALOAD",
  "DUP1",
  "0x00",
  "SSTORE",
  "0x01",
  "ADD",
  "0x00",
  "MSTORE",
  "0xaa",
  "0x20",
  "0x00",
  "LOG1",
  "0x20",
  "0x00",
  "RETURN",
]);

export const CALLER = asm([
  "0x05",
  "0x40",
  "MSTORE",
  // CALL(gas, callee, 0, in 0x40..0x60, out 0x60..0x80)
  "0x20",
  "0x60",
  "0x20",
  "0x40",
  "0x00",
  "0x00",
  "CALLDATALOAD",
  "GAS",
  "CALL",
  "POP",
  // CALL(gas, callee, 0, no input, no output)
  "0x00",
  "0x00",
  "0x00",
  "0x00",
  "0x00",
  "0x00",
  "CALLDATALOAD",
  "GAS",
  "CALL",
  "POP",
  // STATICCALL(gas, callee, in 0x40..0x60, out 0x80..0xa0)
  "0x20",
  "0x80",
  "0x20",
  "0x40",
  "0x00",
  "CALLDATALOAD",
  "GAS",
  "STATICCALL",
  "POP",
  "0x20",
  "0x60",
  "RETURN",
]);

export type Receipt = {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  contractAddress: string | null;
  gasUsed: string;
  status: string;
};

/** Sends EIP-1559 transactions from dev account `from`, each pre-confirmed on return. */
export function devSender(node: DevNode, from: number) {
  const account = privateKeyToAccount(node.accounts[from]!.privateKey as `0x${string}`);
  let nonce = 0;
  return {
    address: account.address.toLowerCase(),
    async send(tx: { to?: string; data: string; gas?: bigint }): Promise<Receipt> {
      const raw = await account.signTransaction({
        chainId: Number(node.chainId),
        type: "eip1559",
        nonce: nonce++,
        gas: tx.gas ?? 300_000n,
        maxFeePerGas: parseGwei("20"),
        maxPriorityFeePerGas: 1n,
        data: tx.data as `0x${string}`,
        ...(tx.to === undefined ? {} : { to: tx.to as `0x${string}` }),
      });
      return (await call(node.dedicatedUrl, "eth_sendRawTransactionSync", [raw])) as Receipt;
    },
    deploy(runtime: string): Promise<Receipt> {
      return this.send({ data: deployCode(runtime) });
    },
  };
}

/** The caller's calldata: the callee's address as a word. */
export function calleeWord(callee: string): string {
  return `0x${callee.slice(2).padStart(64, "0")}`;
}

/** The two contracts deployed from dev account 1, and the transaction that runs them. */
export type TraceContracts = {
  readonly sender: ReturnType<typeof devSender>;
  readonly callee: string;
  readonly caller: string;
  /** The caller called with the callee's address, pre-confirmed on return. */
  runCaller(): Promise<Receipt>;
};

export async function deployTraceContracts(node: DevNode): Promise<TraceContracts> {
  const sender = devSender(node, 1);
  const callee = (await sender.deploy(CALLEE)).contractAddress!;
  const caller = (await sender.deploy(CALLER)).contractAddress!;
  return {
    sender,
    callee,
    caller,
    runCaller: () => sender.send({ to: caller, data: calleeWord(callee) }),
  };
}
