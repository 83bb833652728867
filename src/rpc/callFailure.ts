// Call/estimate failures from the call worker as JSON-RPC errors: reverts are code 3 with the
// revert data (geth's revertError), everything else -32000.
import type { CallResult } from "../services/callRequest.ts";
import { RpcError } from "../services/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import { revertMessage } from "../util/revert.ts";

type Failure = { message: string; rpcCode: number; data: string | undefined };

function isFailure(e: unknown): e is Error & Failure {
  return e instanceof Error && typeof (e as Partial<Failure>).rpcCode === "number";
}

/** Runs a call-worker request, turning its failures into RpcErrors. */
export async function withCallErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isFailure(e)) throw e;
    throw e.data === undefined
      ? new RpcError(e.rpcCode, e.message)
      : new RpcError(e.rpcCode, e.message, e.data);
  }
}

/** A failed call result as geth reports it. */
export function callResultError(result: Extract<CallResult, { ok: false }>): RpcError {
  if (!result.reverted) return new RpcError(-32000, result.error);
  return new RpcError(3, revertMessage(result.returnData), bytesToHex(result.returnData));
}
