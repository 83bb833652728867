// eth_simulateV1's first parameter (geth's simOpts) parsed at the edge, with encoding/json's
// rules: keys match case-insensitively, null leaves a field unset, unknown keys are ignored, and a
// value of the wrong type names the struct field it was meant for.
import { InvalidParamsError } from "../../services/errors.ts";
import type {
  AccountOverride,
  BlockOverrides,
  SimulateBlock,
  SimulateCall,
  SimulateRequest,
  StateOverrides,
  WithdrawalOverride,
} from "../../services/simulate.ts";
import { parseCallArgs } from "../callArgs.ts";
import {
  parseAddress,
  parseBool,
  parseHash32,
  parseHexBytes,
  parseQuantity,
  parseUint64,
} from "../params.ts";
import { goFold } from "../wire.ts";

type Obj = Record<string, unknown>;

function kind(raw: unknown): string {
  if (typeof raw === "string") return "string";
  if (typeof raw === "number") return "number";
  if (typeof raw === "boolean") return "bool";
  if (Array.isArray(raw)) return "array";
  return "object";
}

/** The fields of a JSON object by their folded names (a later duplicate wins, as in Go). */
function fields(raw: Obj): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const key of Object.keys(raw)) out.set(goFold(key), raw[key]);
  return out;
}

/** Where a value sits: the innermost Go struct and the JSON path from the top (no indices). */
type Where = { readonly struct: string; readonly path: string };

function typeError(value: string, goType: string, at: Where | undefined): InvalidParamsError {
  const into =
    at === undefined
      ? `Go value of type ${goType}`
      : `Go struct field ${at.struct}.${at.path} of type ${goType}`;
  return new InvalidParamsError(`json: cannot unmarshal ${value} into ${into}`);
}

/** Runs a leaf parser, naming the struct field in its encoding/json type error. */
function leaf<T>(parse: (raw: unknown) => T, raw: unknown, at: Where): T {
  try {
    return parse(raw);
  } catch (e) {
    if (!(e instanceof InvalidParamsError)) throw e;
    const m = /^json: cannot unmarshal (.*) into Go value of type (.*)$/.exec(e.message);
    if (m === null) throw e;
    throw typeError(m[1]!, m[2]!, at);
  }
}

function object(raw: unknown, goType: string, at: Where | undefined): Map<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw typeError(kind(raw), goType, at);
  return fields(raw as Obj);
}

function list(raw: unknown, goType: string, at: Where): unknown[] {
  if (!Array.isArray(raw)) throw typeError(kind(raw), goType, at);
  return raw;
}

function opt<T>(f: Map<string, unknown>, key: string, parse: (raw: unknown) => T): T | undefined {
  const raw = f.get(key);
  return raw === undefined || raw === null ? undefined : parse(raw);
}

/** hexutil.UnmarshalFixedText, the map-key decoder of common.Address / common.Hash. */
function fixedText(raw: string, size: number, name: string): Uint8Array {
  const fail = (m: string) => new InvalidParamsError(m);
  const hex = raw.startsWith("0x") || raw.startsWith("0X") ? raw.slice(2) : undefined;
  if (hex === undefined) throw fail("hex string without 0x prefix");
  if (hex.length !== size * 2) {
    if (hex.length % 2 !== 0) throw fail("hex string of odd length");
    throw fail(`hex string has length ${hex.length}, want ${size * 2} for ${name}`);
  }
  if (!/^[0-9a-fA-F]*$/.test(hex)) throw fail("invalid hex string");
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

function parseStorage(raw: unknown, at: Where): Array<readonly [Uint8Array, Uint8Array]> {
  object(raw, "map[common.Hash]common.Hash", at);
  const out: Array<readonly [Uint8Array, Uint8Array]> = [];
  for (const [key, value] of Object.entries(raw as Obj)) {
    out.push([fixedText(key, 32, "Hash"), leaf(parseHash32, value, at)]);
  }
  return out;
}

function parseAccount(raw: unknown): AccountOverride {
  const at = (path: string): Where => ({
    struct: "OverrideAccount",
    path: `blockStateCalls.stateOverrides.${path}`,
  });
  const f = object(raw, "override.OverrideAccount", {
    struct: "simBlock",
    path: "blockStateCalls.stateOverrides",
  });
  return {
    nonce: opt(f, "nonce", (v) => leaf(parseUint64, v, at("nonce"))),
    code: opt(f, "code", (v) => leaf(parseHexBytes, v, at("code"))),
    balance: opt(f, "balance", (v) => leaf(parseQuantity, v, at("balance"))),
    state: opt(f, "state", (v) => parseStorage(v, at("state"))),
    stateDiff: opt(f, "statediff", (v) => parseStorage(v, at("stateDiff"))),
    movePrecompileToAddress: opt(f, "moveprecompiletoaddress", (v) =>
      leaf(parseAddress, v, at("movePrecompileToAddress")),
    ),
  };
}

/** override.StateOverride: address → account, addresses decoded as Go map keys. */
export function parseStateOverrides(raw: unknown): StateOverrides {
  const where = { struct: "simBlock", path: "blockStateCalls.stateOverrides" };
  object(raw, "override.StateOverride", where);
  const byAddress = new Map<string, readonly [Uint8Array, AccountOverride]>();
  for (const [key, value] of Object.entries(raw as Obj)) {
    const address = fixedText(key, 20, "Address");
    // Two spellings of one address: Go's map keeps the later one.
    byAddress.set(Buffer.from(address).toString("hex"), [address, parseAccount(value ?? {})]);
  }
  return [...byAddress.values()];
}

/** types.Withdrawals: each field optional (zero when absent), decoded on its own. */
function parseWithdrawals(raw: unknown): WithdrawalOverride[] {
  const at = (path: string): Where => ({ struct: "Withdrawal", path });
  const where = { struct: "BlockOverrides", path: "blockStateCalls.blockOverrides.Withdrawals" };
  return list(raw, "types.Withdrawals", where).map((entry) => {
    const f = object(entry ?? {}, "types.Withdrawal", where);
    return {
      index: opt(f, "index", (v) => leaf(parseUint64, v, at("index"))) ?? 0n,
      validatorIndex:
        opt(f, "validatorindex", (v) => leaf(parseUint64, v, at("validatorIndex"))) ?? 0n,
      address: opt(f, "address", (v) => leaf(parseAddress, v, at("address"))) ?? new Uint8Array(20),
      amount: opt(f, "amount", (v) => leaf(parseUint64, v, at("amount"))) ?? 0n,
    };
  });
}

export function parseBlockOverrides(raw: unknown): BlockOverrides {
  const at = (path: string): Where => ({
    struct: "BlockOverrides",
    path: `blockStateCalls.blockOverrides.${path}`,
  });
  const f = object(raw, "override.BlockOverrides", {
    struct: "simBlock",
    path: "blockStateCalls.blockOverrides",
  });
  return {
    number: opt(f, "number", (v) => leaf(parseQuantity, v, at("Number"))),
    difficulty: opt(f, "difficulty", (v) => leaf(parseQuantity, v, at("Difficulty"))),
    time: opt(f, "time", (v) => leaf(parseUint64, v, at("Time"))),
    gasLimit: opt(f, "gaslimit", (v) => leaf(parseUint64, v, at("GasLimit"))),
    feeRecipient: opt(f, "feerecipient", (v) => leaf(parseAddress, v, at("FeeRecipient"))),
    prevRandao: opt(f, "prevrandao", (v) => leaf(parseHash32, v, at("PrevRandao"))),
    baseFeePerGas: opt(f, "basefeepergas", (v) => leaf(parseQuantity, v, at("BaseFeePerGas"))),
    blobBaseFee: opt(f, "blobbasefee", (v) => leaf(parseQuantity, v, at("BlobBaseFee"))),
    beaconRoot: opt(f, "beaconroot", (v) => leaf(parseHash32, v, at("BeaconRoot"))),
    withdrawals: opt(f, "withdrawals", parseWithdrawals),
  };
}

/** TransactionArgs with the fields eth_call does not take: chainId and the blob fields. */
export function parseSimulateCall(raw: unknown): SimulateCall {
  const at = (path: string): Where => ({
    struct: "TransactionArgs",
    path: `blockStateCalls.calls.${path}`,
  });
  const f = object(raw, "ethapi.TransactionArgs", {
    struct: "simBlock",
    path: "blockStateCalls.calls",
  });
  const base = leaf((v) => parseCallArgs(v, true), raw, at("calls"));
  const hashes = opt(f, "blobversionedhashes", (v) =>
    list(v, "[]common.Hash", at("blobVersionedHashes")).map((h) =>
      leaf(parseHash32, h, at("blobVersionedHashes")),
    ),
  );
  return {
    ...base,
    chainId: opt(f, "chainid", (v) => leaf(parseQuantity, v, at("chainId"))),
    maxFeePerBlobGas: opt(f, "maxfeeperblobgas", (v) =>
      leaf(parseQuantity, v, at("maxFeePerBlobGas")),
    ),
    blobVersionedHashes: hashes,
  };
}

function parseBlock(raw: unknown): SimulateBlock {
  const f = object(raw ?? {}, "ethapi.simBlock", {
    struct: "simOpts",
    path: "blockStateCalls",
  });
  const calls = opt(f, "calls", (v) =>
    list(v, "[]ethapi.TransactionArgs", { struct: "simBlock", path: "blockStateCalls.calls" }),
  );
  return {
    blockOverrides: opt(f, "blockoverrides", parseBlockOverrides),
    stateOverrides: opt(f, "stateoverrides", parseStateOverrides),
    calls: (calls ?? []).map((c) => parseSimulateCall(c ?? {})),
  };
}

/** geth's simOpts. */
export function parseSimulateOptions(raw: unknown): SimulateRequest {
  // A JSON null leaves every field unset (and then fails as an empty input).
  const f = raw === null ? new Map<string, unknown>() : object(raw, "ethapi.simOpts", undefined);
  const flag = (key: string, name: string) =>
    opt(f, key, (v) => leaf(parseBool, v, { struct: "simOpts", path: name })) ?? false;
  const blocks = opt(f, "blockstatecalls", (v) =>
    list(v, "[]ethapi.simBlock", { struct: "simOpts", path: "blockStateCalls" }),
  );
  return {
    blocks: (blocks ?? []).map(parseBlock),
    traceTransfers: flag("tracetransfers", "traceTransfers"),
    validation: flag("validation", "validation"),
    returnFullTransactions: flag("returnfulltransactions", "returnFullTransactions"),
  };
}
