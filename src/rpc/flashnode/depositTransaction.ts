// flashnode_depositTransaction (dev, OP-stack chains): injects a user deposit as the bridge
// (OptimismPortal.depositTransaction on L1) would produce it, so deposit flows can be tested
// without an L1. It runs at the start of the next block, after the L1-info deposit, in
// flashblock 0 as on Base; the answer is the L2 deposit transaction's hash.
import { randomBytes } from "node:crypto";
import { encodeDeposit } from "../../chain/op/depositTx.ts";
import { userDepositSourceHash } from "../../chain/op/l1Info.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError, ServerError } from "../../services/errors.ts";
import { keccak256 } from "../../util/crypto.ts";
import { transactionSink } from "../eth/sendRawTransaction.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress, parseBool, parseHexBytes, parseQuantity } from "../params.ts";

/** OptimismPortal's default gas for a deposit that names none (its minimum is far lower). */
const DEFAULT_DEPOSIT_GAS = 100_000n;
/** The most gas a deposit may carry (OP specs: the L1 block's deposit gas budget). */
const MAX_DEPOSIT_GAS = 20_000_000n;
/** L1→L2 aliasing of a contract sender (AddressAliasHelper): + 0x1111…1111 mod 2^160. */
const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;

export type DepositRequest = {
  readonly from: Uint8Array;
  readonly to: Uint8Array | undefined;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gas: bigint;
  readonly data: Uint8Array;
  /** The L1 sender is a contract: its address arrives aliased, as the portal does it. */
  readonly aliased: boolean;
};

function field<T>(
  obj: Record<string, unknown>,
  key: string,
  parse: (raw: unknown) => T,
): T | undefined {
  const raw = obj[key];
  if (raw === undefined || raw === null) return undefined;
  try {
    return parse(raw);
  } catch (e) {
    throw new InvalidParamsError(`invalid argument 0: ${key}: ${(e as Error).message}`);
  }
}

export function parseDepositRequest(raw: unknown): DepositRequest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new InvalidParamsError("invalid argument 0: expected a deposit object");
  const o = raw as Record<string, unknown>;
  const from = field(o, "from", parseAddress);
  if (from === undefined) throw new InvalidParamsError("invalid argument 0: from is required");
  const gas = field(o, "gas", parseQuantity) ?? DEFAULT_DEPOSIT_GAS;
  if (gas > MAX_DEPOSIT_GAS)
    throw new InvalidParamsError(`invalid argument 0: gas ${gas} above ${MAX_DEPOSIT_GAS}`);
  return {
    from,
    to: field(o, "to", parseAddress),
    mint: field(o, "mint", parseQuantity) ?? 0n,
    value: field(o, "value", parseQuantity) ?? 0n,
    gas,
    data: field(o, "data", parseHexBytes) ?? field(o, "input", parseHexBytes) ?? new Uint8Array(0),
    aliased: field(o, "aliased", parseBool) ?? false,
  };
}

function alias(address: Uint8Array): Uint8Array {
  let n = 0n;
  for (const b of address) n = (n << 8n) | BigInt(b);
  n = (n + ALIAS_OFFSET) % (1n << 160n);
  const out = new Uint8Array(20);
  for (let i = 19; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

export function depositTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseDepositRequest)],
    handler: async ([req]) => {
      // Each injected deposit stands for its own TransactionDeposited log on a simulated L1.
      const sourceHash = userDepositSourceHash(keccak256(randomBytes(32)), 0n);
      const raw = encodeDeposit({
        sourceHash,
        from: req.aliased ? alias(req.from) : req.from,
        to: req.to,
        mint: req.mint,
        value: req.value,
        gasLimit: req.gas,
        isSystemTx: false,
        data: req.data,
      });
      try {
        return (await transactionSink(backend).submit(raw)).hash;
      } catch (e) {
        throw e instanceof ServerError ? e : new ServerError((e as Error).message);
      }
    },
  });
}
