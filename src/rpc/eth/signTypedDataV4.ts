import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { NoSignerAvailableError } from "../dev/devControl.ts";
import { defineMethod, required } from "../method.ts";
import { parseAddress } from "../params.ts";

function parseTypedData(raw: unknown): unknown {
  if (typeof raw === "string" || (typeof raw === "object" && raw !== null && !Array.isArray(raw)))
    return raw;
  throw new InvalidParamsError("typed data must be an object (or its JSON text)");
}

/** eth_signTypedData_v4(address, typedData) → the EIP-712 signature (r ‖ s ‖ v). */
export function signTypedDataV4(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseAddress), required(parseTypedData)],
    handler: ([address, typedData]) => {
      const signer = backend.signer;
      if (signer === undefined || !signer.canSign(address)) throw new NoSignerAvailableError();
      try {
        return bytesToHex(signer.signTypedData(address, typedData));
      } catch (e) {
        if ((e as { code?: string }).code === "TYPED_DATA")
          throw new InvalidParamsError((e as Error).message);
        throw e;
      }
    },
  });
}
