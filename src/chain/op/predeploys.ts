// The OP-stack predeploys of a dev genesis, from the compiled artifacts Optimism publishes
// (@eth-optimism/contracts-bedrock 0.17.3, MIT: L1Block 1.4.1-beta.1, GasPriceOracle 1.3.0,
// the fee vaults, L2ToL1MessagePasser). On a real chain each sits behind a proxy; here the
// implementation's runtime code is placed at the predeploy address itself, except for the
// GasPriceOracle: its published implementation sits at its implementation address
// (0xc0d3…000f) behind our GasPriceOracleProxy (contracts/), which delegates every call to it
// and also answers Isthmus' getOperatorFee (zero: this chain, like Base, has no operator fee),
// which viem's estimateTotalFee calls. Storage is what a chain that went through Ecotone and
// Fjord holds (GasPriceOracle.isEcotone/isFjord), so GasPriceOracle.getL1Fee — what viem's
// estimateL1Fee calls — prices with Fjord's formula, as the node charges.
// The fee vaults have immutables (recipient, minimum, network): their creation code runs in an
// EVM once, so their runtime code is exactly what the constructor makes.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM } from "@ethereumjs/evm";
import { Address } from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex, hexToBytes, padLeft } from "../../util/hex.ts";
import {
  BASE_FEE_VAULT,
  GAS_PRICE_ORACLE,
  L1_BLOCK,
  L1_FEE_VAULT,
  L2_TO_L1_MESSAGE_PASSER,
  SEQUENCER_FEE_VAULT,
} from "./config.ts";
import compiled from "./contracts/contracts.json" with { type: "json" };
import type { L1Values } from "./l1Info.ts";

/** Where OP chains keep predeploy implementations (0xc0d3…, plus the predeploy's suffix). */
export const GAS_PRICE_ORACLE_IMPLEMENTATION = hexToBytes(
  "0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3000f",
);

export const CONTRACTS_PACKAGE = "@eth-optimism/contracts-bedrock";

type Artifact = {
  readonly bytecode: { readonly object: string };
  readonly deployedBytecode: { readonly object: string };
};

function artifact(name: string): Artifact {
  const require = createRequire(import.meta.url);
  const path = require.resolve(`${CONTRACTS_PACKAGE}/forge-artifacts/${name}.sol/${name}.json`);
  return JSON.parse(readFileSync(path, "utf8")) as Artifact;
}

export type GenesisAlloc = Record<
  string,
  { balance: string; code: string; storage?: Record<string, string> }
>;

function word(n: bigint): Uint8Array {
  return padLeft(bigIntToBytes(n), 32);
}

/**
 * A fee vault's runtime code: its constructor run with (recipient, min withdrawal, L2 network).
 * `evm`: one for every vault of a genesis (building an EVM costs more than running a constructor);
 * each constructor runs from a caller of its own, so each creates at an address of its own.
 */
async function vaultCode(
  evm: EVM,
  caller: number,
  name: string,
  recipient: Uint8Array,
): Promise<string> {
  const creation = hexToBytes(artifact(name).bytecode.object);
  const args = new Uint8Array(96);
  args.set(padLeft(recipient, 32), 0);
  args.set(word(0n), 32); // any balance may be withdrawn (a dev chain)
  args.set(word(1n), 64); // WithdrawalNetwork.L2: withdraw() pays the recipient on this chain
  const data = new Uint8Array(creation.length + args.length);
  data.set(creation, 0);
  data.set(args, creation.length);
  const from = new Uint8Array(20);
  from[19] = caller;
  const result = await evm.runCall({ data, gasLimit: 30_000_000n, caller: new Address(from) });
  if (result.execResult.exceptionError !== undefined)
    throw new Error(`${name} constructor failed: ${result.execResult.exceptionError.error}`);
  return bytesToHex(result.execResult.returnValue);
}

const hexKey = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const hexWord = (b: Uint8Array) => bytesToHex(padLeft(b, 32));

/** L1Block's storage as its first setL1BlockValuesEcotone call would leave it. */
function l1BlockStorage(l1: L1Values): Record<string, string> {
  const slot0 = (l1.timestamp << 64n) | l1.number;
  const slot3 =
    (BigInt(l1.baseFeeScalar) << 96n) | (BigInt(l1.blobBaseFeeScalar) << 64n) | l1.sequenceNumber;
  return {
    [hexKey(0)]: hexWord(bigIntToBytes(slot0)),
    [hexKey(1)]: hexWord(bigIntToBytes(l1.baseFee)),
    [hexKey(2)]: hexWord(l1.hash),
    [hexKey(3)]: hexWord(bigIntToBytes(slot3)),
    [hexKey(4)]: hexWord(l1.batcherHash),
    [hexKey(7)]: hexWord(bigIntToBytes(l1.blobBaseFee)),
  };
}

const unprefixed = (b: Uint8Array) => bytesToHex(b).slice(2);

/** Genesis accounts of the predeploys; `vaultRecipient` receives what the fee vaults withdraw. */
export async function opPredeploys(
  l1: L1Values,
  vaultRecipient: Uint8Array,
): Promise<GenesisAlloc> {
  const evm = await createEVM({
    common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }),
  });
  return {
    [unprefixed(L1_BLOCK)]: {
      balance: "0x0",
      code: artifact("L1Block").deployedBytecode.object,
      storage: l1BlockStorage(l1),
    },
    [unprefixed(GAS_PRICE_ORACLE)]: {
      balance: "0x0",
      code: compiled.GasPriceOracleProxy.runtime,
      // slot 0: isEcotone (byte 0) and isFjord (byte 1), as setEcotone() and setFjord() leave it
      storage: { [hexKey(0)]: hexWord(Uint8Array.of(1, 1)) },
    },
    [unprefixed(GAS_PRICE_ORACLE_IMPLEMENTATION)]: {
      balance: "0x0",
      code: artifact("GasPriceOracle").deployedBytecode.object,
    },
    [unprefixed(L2_TO_L1_MESSAGE_PASSER)]: {
      balance: "0x0",
      code: artifact("L2ToL1MessagePasser").deployedBytecode.object,
    },
    [unprefixed(SEQUENCER_FEE_VAULT)]: {
      balance: "0x0",
      code: await vaultCode(evm, 1, "SequencerFeeVault", vaultRecipient),
    },
    [unprefixed(BASE_FEE_VAULT)]: {
      balance: "0x0",
      code: await vaultCode(evm, 2, "BaseFeeVault", vaultRecipient),
    },
    [unprefixed(L1_FEE_VAULT)]: {
      balance: "0x0",
      code: await vaultCode(evm, 3, "L1FeeVault", vaultRecipient),
    },
  };
}
