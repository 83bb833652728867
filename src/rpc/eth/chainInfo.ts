import { quantity } from "../../util/hex.ts";
import type { RpcBackend } from "../backend.ts";
import { ServerError } from "../errors.ts";
import { defineMethod } from "../method.ts";

function head(backend: RpcBackend): number {
  const n = backend.chain.headNumber();
  if (n === undefined) throw new ServerError("archive is empty");
  return n;
}

/** eth_chainId → chain id. */
export function chainId(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => quantity(backend.chainId) });
}

/** net_version → chain id in decimal. */
export function netVersion(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => backend.chainId.toString(10) });
}

/** eth_blockNumber → newest sealed block. */
export function blockNumber(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => quantity(head(backend)) });
}

/** eth_syncing → false: the archive serves what it holds, it never syncs from peers. */
export function syncing(_backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => false });
}

/** web3_clientVersion → name/version/platform. */
export function clientVersion(backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => backend.clientVersion });
}
