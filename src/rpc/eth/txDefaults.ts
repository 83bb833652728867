// eth_sendTransaction's and eth_signTransaction's request, filled as anvil fills it: the sender
// (the first account), the nonce at `pending` (the pool's included), the gas (an estimate at
// `pending`; when that fails, 21000 for a plain transfer, else the block's limit), the fees
// (eth_gasPrice as the cap, a 1 gwei tip) and the chain id; the type from the fields given.

import type { RpcBackend } from "../../services/backend.ts";
import type { CallRequest } from "../../services/callRequest.ts";
import { InvalidParamsError, ServerError } from "../../services/errors.ts";
import type { BlockAt, UnsignedTransaction } from "../../services/signer.ts";
import { parseCallArgs } from "../callArgs.ts";
import { devAccounts, NoSignerAvailableError } from "../dev/devControl.ts";
import { parseQuantity, parseUint64 } from "../params.ts";
import { livePending, resolveState } from "../resolveBlock.ts";
import { callService } from "./callTarget.ts";
import { nextBaseFee, SUGGESTED_TIP } from "./fees.ts";

/** EIP-7825's cap on a transaction's gas (Osaka): the fallback gas never passes it. */
const TX_GAS_CAP = 1n << 24n;
const TRANSFER_GAS = 21_000n;

export type TransactionArgs = CallRequest & {
  readonly chainId: bigint | undefined;
  readonly type: bigint | undefined;
};

function field(obj: Record<string, unknown>, key: string): unknown {
  const actual = Object.keys(obj).find((k) => k.toLowerCase() === key.toLowerCase());
  const raw = actual === undefined ? undefined : obj[actual];
  return raw === null ? undefined : raw;
}

/** geth's TransactionArgs with `chainId` and `type`; blob transactions are not made here. */
export function parseTransactionArgs(raw: unknown): TransactionArgs {
  const call = parseCallArgs(raw);
  const obj = raw as Record<string, unknown>;
  if (field(obj, "blobVersionedHashes") !== undefined || field(obj, "blobs") !== undefined)
    throw new InvalidParamsError("blob transactions are sent signed, with eth_sendRawTransaction");
  const chainId = field(obj, "chainId");
  const type = field(obj, "type");
  return {
    ...call,
    chainId: chainId === undefined ? undefined : parseQuantity(chainId),
    type: type === undefined ? undefined : parseUint64(type),
  };
}

function txType(args: TransactionArgs): 0 | 1 | 2 | 4 {
  if (args.type !== undefined) {
    const t = Number(args.type);
    if (t === 0 || t === 1 || t === 2 || t === 4) return t;
    throw new InvalidParamsError(
      `transaction type ${args.type} is not made by eth_sendTransaction`,
    );
  }
  if (args.authorizationList !== undefined) return 4;
  if (args.gasPrice !== undefined) return args.accessList === undefined ? 0 : 1;
  return 2;
}

/** The block a transaction sent now runs in: the pending one, or the one after the head. */
export function nextBlock(backend: RpcBackend): BlockAt & { gasLimit: bigint | undefined } {
  const p = livePending(backend);
  if (p !== undefined)
    return {
      number: BigInt(p.base.number),
      timestamp: p.base.timestamp,
      gasLimit: p.base.gasLimit,
    };
  return {
    number: BigInt((backend.chain.headNumber() ?? 0) + 1),
    timestamp: BigInt(Math.floor(Date.now() / 1000)),
    gasLimit: undefined,
  };
}

/** The sender: `from`, or the first of eth_accounts. */
export async function senderOf(backend: RpcBackend, args: TransactionArgs): Promise<Uint8Array> {
  if (args.from !== undefined) return args.from;
  const first = (await devAccounts(backend))[0];
  if (first === undefined) throw new NoSignerAvailableError();
  return first;
}

export async function fillTransaction(
  backend: RpcBackend,
  from: Uint8Array,
  args: TransactionArgs,
): Promise<UnsignedTransaction> {
  const type = txType(args);
  const pending = resolveState(backend, { kind: "tag", tag: "pending" });
  const stateNonce = pending.account(from)?.nonce ?? 0n;
  const pooled = backend.transactions?.poolNonce(from);
  const nonce = args.nonce ?? (pooled !== undefined && pooled > stateNonce ? pooled : stateNonce);
  const price = nextBaseFee(backend) + SUGGESTED_TIP;
  const legacy = type === 0 || type === 1;
  const gasPrice = legacy ? (args.gasPrice ?? price) : undefined;
  const maxFeePerGas = legacy ? undefined : (args.maxFeePerGas ?? args.gasPrice ?? price);
  const maxPriorityFeePerGas = legacy ? undefined : (args.maxPriorityFeePerGas ?? SUGGESTED_TIP);
  let gasLimit = args.gas;
  if (gasLimit === undefined) {
    const request: CallRequest = {
      ...args,
      from,
      nonce,
      gasPrice,
      maxFeePerGas,
      maxPriorityFeePerGas,
    };
    try {
      const block = nextBlock(backend);
      gasLimit = await callService(backend).estimateGas(request, {
        number: Number(block.number),
        pending: livePending(backend) !== undefined,
      });
    } catch {
      const limit = nextBlock(backend).gasLimit ?? TX_GAS_CAP;
      const plain = args.to !== undefined && (args.data === undefined || args.data.length === 0);
      gasLimit = plain ? TRANSFER_GAS : limit < TX_GAS_CAP ? limit : TX_GAS_CAP;
    }
  }
  return {
    type,
    chainId: args.chainId ?? backend.chainId,
    nonce,
    gasLimit,
    to: args.to,
    value: args.value ?? 0n,
    data: args.data ?? new Uint8Array(0),
    gasPrice,
    maxFeePerGas,
    maxPriorityFeePerGas,
    accessList: type === 1 || type === 2 || type === 4 ? (args.accessList ?? []) : undefined,
    authorizationList: type === 4 ? (args.authorizationList ?? []) : undefined,
  };
}

/**
 * The signer's bytes for a filled request; what it cannot make a transaction of (a tip above
 * the fee cap, gas above EIP-7825's cap) it refuses in geth's words, answered as -32000.
 */
export function signed(sign: () => Uint8Array): Uint8Array {
  try {
    return sign();
  } catch (e) {
    throw new ServerError((e as Error).message);
  }
}
