import type { HeaderView } from "../../chain/blockView.ts";
import type { ForkConfig } from "../../chain/ethConfig.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex, quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";

function canonicalHeader(backend: RpcBackend, number: number): HeaderView {
  const hash = backend.chain.canonicalHash(number);
  const rlp = hash === undefined ? undefined : backend.chain.headerRlp(number, hash);
  if (rlp === undefined) throw new ServerError("unable to load genesis: header not found");
  return backend.decoder.header(rlp);
}

/** One fork's entry as geth's JSON. */
function forkJson(c: ForkConfig | undefined): unknown {
  if (c === undefined) return null;
  return {
    activationTime: Number(c.activationTime),
    blobSchedule: c.blobSchedule ?? null,
    chainId: quantity(c.chainId),
    forkId: bytesToHex(c.forkId),
    precompiles: Object.fromEntries(c.precompiles),
    systemContracts: Object.fromEntries(c.systemContracts),
  };
}

/**
 * eth_config (EIP-7910) → {current, next, last}: the timestamp fork the newest sealed block is
 * in, the one scheduled after it and the last one scheduled (both null when none is), as geth.
 */
export function config(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      const genesis = canonicalHeader(backend, 0);
      const head = canonicalHeader(backend, backend.chain.headNumber() ?? 0);
      const c = backend.forks.ethConfig(backend.chainId, genesis, head.timestamp);
      return { current: forkJson(c.current), next: forkJson(c.next), last: forkJson(c.last) };
    },
  });
}
