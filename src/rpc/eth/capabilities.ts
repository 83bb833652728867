import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex, quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";

type Resource = { disabled: boolean; oldestBlock?: string };

/** Kept from genesis, never deleted: no `deleteStrategy` (geth omits it without a window). */
const FROM_GENESIS: Resource = { disabled: false, oldestBlock: "0x0" };

function stateRoot(backend: RpcBackend, number: number): Uint8Array | undefined {
  const hash = backend.chain.canonicalHash(number);
  const rlp = hash === undefined ? undefined : backend.chain.headerRlp(number, hash);
  return rlp === undefined ? undefined : backend.decoder.header(rlp).stateRoot;
}

/**
 * Where eth_getProof can answer. Trie nodes, once stored, are never deleted, and a node stores
 * them for every block from where it started to (a replica with --verify, or restored from a
 * sequencer's snapshot) — so the range is [oldest block with its trie, head], found by bisection,
 * or none when the head has none (a replica without --verify).
 */
function stateProofs(backend: RpcBackend, head: number): Resource {
  const proofs = backend.proofs;
  const holds = (n: number) => {
    const root = stateRoot(backend, n);
    return root !== undefined && proofs?.holds(root) === true;
  };
  if (!holds(head)) return { disabled: true };
  let lo = -1; // without trie nodes (or before genesis)
  let hi = head; // with
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (holds(mid)) hi = mid;
    else lo = mid;
  }
  return { disabled: false, oldestBlock: quantity(hi) };
}

/**
 * eth_capabilities → what the node can answer, for routers (execution-apis #755): the head, and
 * per resource whether it is served and from which block. The archive keeps blocks, transactions,
 * receipts, logs and state from genesis for ever (a snapshot-restored replica too: a snapshot is
 * the whole archive); state proofs need the trie nodes, which not every node keeps.
 */
export function capabilities(backend: RpcBackend) {
  return defineMethod({
    params: [],
    handler: () => {
      const head = backend.chain.headNumber();
      const hash = head === undefined ? undefined : backend.chain.canonicalHash(head);
      if (head === undefined || hash === undefined) throw new ServerError("archive is empty");
      return {
        head: { number: quantity(head), hash: bytesToHex(hash) },
        state: FROM_GENESIS,
        tx: FROM_GENESIS,
        logs: FROM_GENESIS,
        receipts: FROM_GENESIS,
        blocks: FROM_GENESIS,
        stateproofs: stateProofs(backend, head),
      };
    },
  });
}
