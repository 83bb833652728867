// geth's TransactionArgs (the call object of eth_call / eth_estimateGas), parsed at the edge.

import type { CallRequest } from "../services/callRequest.ts";
import { InvalidParamsError } from "../services/errors.ts";
import { parseAddress, parseHash32, parseHexBytes, parseQuantity, parseUint64 } from "./params.ts";

function field<T>(
  obj: Record<string, unknown>,
  key: string,
  parse: (raw: unknown) => T,
): T | undefined {
  // JSON keys match case-insensitively, as Go's encoding/json does.
  const actual = Object.keys(obj).find((k) => k.toLowerCase() === key.toLowerCase());
  const raw = actual === undefined ? undefined : obj[actual];
  return raw === undefined || raw === null ? undefined : parse(raw);
}

function parseAccessList(raw: unknown): Array<{ address: Uint8Array; storageKeys: Uint8Array[] }> {
  if (!Array.isArray(raw))
    throw new InvalidParamsError(
      "json: cannot unmarshal non-array into Go struct field TransactionArgs.accessList of type types.AccessList",
    );
  return raw.map((entry) => {
    const e = (entry ?? {}) as { address?: unknown; storageKeys?: unknown };
    const keys = Array.isArray(e.storageKeys) ? e.storageKeys : [];
    return { address: parseAddress(e.address), storageKeys: keys.map(parseHash32) };
  });
}

function parseAuthorizations(raw: unknown): NonNullable<CallRequest["authorizationList"]> {
  if (!Array.isArray(raw)) {
    throw new InvalidParamsError(
      "json: cannot unmarshal non-array into Go struct field TransactionArgs.authorizationList of type []types.SetCodeAuthorization",
    );
  }
  return raw.map((entry) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    return {
      chainId: parseQuantity(e.chainId),
      address: parseAddress(e.address),
      nonce: parseUint64(e.nonce),
      yParity: parseUint64(e.yParity),
      r: parseQuantity(e.r),
      s: parseQuantity(e.s),
    };
  });
}

/**
 * `lenient`: as geth's CallDefaults (eth_simulateV1), which leaves the data/input and fee-style
 * conflicts to execution (input wins; the fee conflict fails there).
 */
export function parseCallArgs(raw: unknown, lenient = false): CallRequest {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new InvalidParamsError(
      `json: cannot unmarshal ${Array.isArray(raw) ? "array" : typeof raw === "string" ? "string" : raw === null ? "null" : "number"} into Go value of type ethapi.TransactionArgs`,
    );
  }
  const obj = raw as Record<string, unknown>;
  const data = field(obj, "data", parseHexBytes);
  const input = field(obj, "input", parseHexBytes);
  if (!lenient && data !== undefined && input !== undefined && Buffer.compare(data, input) !== 0) {
    throw new InvalidParamsError(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    );
  }
  const gasPrice = field(obj, "gasPrice", parseQuantity);
  const maxFeePerGas = field(obj, "maxFeePerGas", parseQuantity);
  const maxPriorityFeePerGas = field(obj, "maxPriorityFeePerGas", parseQuantity);
  if (
    !lenient &&
    gasPrice !== undefined &&
    (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)
  ) {
    throw new InvalidParamsError(
      "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
    );
  }
  return {
    from: field(obj, "from", parseAddress),
    to: field(obj, "to", parseAddress),
    gas: field(obj, "gas", parseUint64),
    gasPrice,
    maxFeePerGas,
    maxPriorityFeePerGas,
    value: field(obj, "value", parseQuantity),
    data: input ?? data,
    nonce: field(obj, "nonce", parseUint64),
    accessList: field(obj, "accessList", parseAccessList),
    authorizationList: field(obj, "authorizationList", parseAuthorizations),
  };
}
