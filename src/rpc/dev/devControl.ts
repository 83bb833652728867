// What the dev methods (anvil_*, evm_*, hardhat_*, eth_accounts, the signing methods) share: the
// sequencer's control channel, the keys, and anvil's lenient parameters.

import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError, ServerError } from "../../services/errors.ts";
import type { DevAnswer, DevRequest } from "../../services/transactions.ts";

export const DEV_METHODS_UNAVAILABLE =
  "dev methods are served by flashnode dev (its sequencer), not by this node";

/** Sends a dev request to the sequencer. */
export function devControl(backend: RpcBackend, request: DevRequest): Promise<DevAnswer> {
  const control = backend.transactions?.control;
  if (control === undefined) return Promise.reject(new ServerError(DEV_METHODS_UNAVAILABLE));
  return control(request);
}

/** anvil's answer when no key signs for the account. */
export class NoSignerAvailableError extends InvalidParamsError {
  constructor() {
    super("No Signer available");
  }
}

/** The accounts eth_accounts lists: the test accounts, then the impersonated ones (anvil's order). */
export async function devAccounts(backend: RpcBackend): Promise<Uint8Array[]> {
  const out = [...(backend.signer?.accounts ?? [])];
  if (backend.transactions?.control === undefined) return out;
  const seen = new Set(out.map((a) => Buffer.from(a).toString("hex")));
  const { accounts = [] } = await devControl(backend, { op: "impersonation" });
  for (const a of accounts) if (!seen.has(Buffer.from(a).toString("hex"))) out.push(a);
  return out;
}

/** Whether transactions of `address` run without a signature now (anvil_impersonateAccount). */
export async function isImpersonated(backend: RpcBackend, address: Uint8Array): Promise<boolean> {
  if (backend.transactions?.control === undefined) return false;
  const { accounts = [], auto = false } = await devControl(backend, { op: "impersonation" });
  return auto || accounts.some((a) => Buffer.compare(a, address) === 0);
}

const U256_MAX = (1n << 256n) - 1n;

/**
 * A number as anvil takes one: a JSON number, a 0x-hex string or a decimal string (cast rpc
 * sends bare numbers, Hardhat hex strings), at most 2^256 - 1. A JSON number is read as
 * JavaScript reads it: above 2^53 only those a double holds exactly (1e18 is one) keep every
 * digit; strings are exact.
 */
export function parseDevNumber(raw: unknown): bigint {
  let n: bigint | undefined;
  if (typeof raw === "number" && Number.isInteger(raw) && raw >= 0) n = BigInt(raw);
  else if (typeof raw === "string" && /^0[xX][0-9a-fA-F]{1,64}$/.test(raw)) n = BigInt(raw);
  else if (typeof raw === "string" && /^[0-9]{1,78}$/.test(raw)) n = BigInt(raw);
  if (n === undefined || n > U256_MAX)
    throw new InvalidParamsError(
      `invalid number ${JSON.stringify(raw) ?? String(raw)}: want a non-negative integer, as a JSON number, a 0x-hex string or a decimal string`,
    );
  return n;
}

/** A parser of dev numbers no larger than `max` (`what` names the limit in the error). */
export function devNumberUpTo(max: bigint, what: string): (raw: unknown) => bigint {
  return (raw) => {
    const n = parseDevNumber(raw);
    if (n > max) throw new InvalidParamsError(`${what} ${n} is above ${max}`);
    return n;
  };
}

export const U64_MAX = (1n << 64n) - 1n;

/** Bytes as anvil takes them: hex with or without 0x, even length. */
export function parseDevBytes(raw: unknown): Uint8Array {
  if (typeof raw === "string") {
    const hex = raw.startsWith("0x") || raw.startsWith("0X") ? raw.slice(2) : raw;
    if (/^([0-9a-fA-F]{2})*$/.test(hex)) return Buffer.from(hex, "hex");
  }
  throw new InvalidParamsError(
    `invalid bytes ${JSON.stringify(raw) ?? String(raw)}: want an even-length hex string`,
  );
}

/** A bool (anvil_autoImpersonateAccount). */
export function parseDevBool(raw: unknown): boolean {
  if (typeof raw === "boolean") return raw;
  throw new InvalidParamsError(
    `invalid bool ${JSON.stringify(raw) ?? String(raw)}: want true or false`,
  );
}
