// geth's engine.PayloadAttributes and types.Withdrawal as JSON parameters (gencodec: required
// fields named when missing, JSON keys matched case-insensitively as encoding/json does).

import type { Withdrawal } from "../../services/buildBlock.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { parseAddress, parseHash32, parseHexBytes, parseUint64 } from "../params.ts";

export type PayloadAttributes = {
  readonly timestamp: bigint;
  readonly prevRandao: Uint8Array;
  readonly suggestedFeeRecipient: Uint8Array;
  readonly withdrawals: readonly Withdrawal[] | undefined;
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
};

function kind(raw: unknown): string {
  if (typeof raw === "string") return "string";
  if (typeof raw === "number") return "number";
  if (typeof raw === "boolean") return "bool";
  return Array.isArray(raw) ? "array" : "object";
}

/** A struct field: undefined when absent or null; a parse error names the field, as Go's. */
function field<T>(
  obj: Record<string, unknown>,
  struct: string,
  key: string,
  parse: (raw: unknown) => T,
): T | undefined {
  const actual = Object.keys(obj).find((k) => k.toLowerCase() === key.toLowerCase());
  const raw = actual === undefined ? undefined : obj[actual];
  if (raw === undefined || raw === null) return undefined;
  try {
    return parse(raw);
  } catch (e) {
    const message = (e as Error).message.replace(
      "into Go value of type",
      `into Go struct field ${struct}.${key} of type`,
    );
    throw new InvalidParamsError(message);
  }
}

function requiredField<T>(value: T | undefined, struct: string, key: string): T {
  if (value === undefined)
    throw new InvalidParamsError(`missing required field '${key}' for ${struct}`);
  return value;
}

function object(raw: unknown, goType: string): Record<string, unknown> {
  if (raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new InvalidParamsError(
      `json: cannot unmarshal ${kind(raw)} into Go value of type ${goType}`,
    );
  return raw as Record<string, unknown>;
}

function parseWithdrawal(raw: unknown): Withdrawal {
  const o = object(raw, "types.Withdrawal");
  const get = <T>(key: string, parse: (r: unknown) => T) =>
    requiredField(field(o, "Withdrawal", key, parse), "Withdrawal", key);
  return {
    index: get("index", parseUint64),
    validatorIndex: get("validatorIndex", parseUint64),
    address: get("address", parseAddress),
    amount: get("amount", parseUint64),
  };
}

function parseWithdrawals(raw: unknown): Withdrawal[] {
  if (!Array.isArray(raw))
    throw new InvalidParamsError(
      `json: cannot unmarshal ${kind(raw)} into Go value of type []*types.Withdrawal`,
    );
  return raw.map(parseWithdrawal);
}

export function parsePayloadAttributes(raw: unknown): PayloadAttributes {
  const o = object(raw, "engine.PayloadAttributes");
  const s = "PayloadAttributes";
  const timestamp = field(o, s, "timestamp", parseUint64);
  const prevRandao = field(o, s, "prevRandao", parseHash32);
  const suggestedFeeRecipient = field(o, s, "suggestedFeeRecipient", parseAddress);
  const withdrawals = field(o, s, "withdrawals", parseWithdrawals);
  const parentBeaconBlockRoot = field(o, s, "parentBeaconBlockRoot", parseHash32);
  return {
    timestamp: requiredField(timestamp, s, "timestamp"),
    prevRandao: requiredField(prevRandao, s, "prevRandao"),
    suggestedFeeRecipient: requiredField(suggestedFeeRecipient, s, "suggestedFeeRecipient"),
    withdrawals,
    parentBeaconBlockRoot,
  };
}

/** *[]hexutil.Bytes: null is "none given" (the handler's undefined). */
export function parseTransactionList(raw: unknown): Uint8Array[] {
  if (!Array.isArray(raw))
    throw new InvalidParamsError(
      `json: cannot unmarshal ${kind(raw)} into Go value of type []hexutil.Bytes`,
    );
  return raw.map(parseHexBytes);
}
