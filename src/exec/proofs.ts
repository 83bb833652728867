// Merkle proofs (eth_getProof) from the state trie nodes the archive keeps: every sealed state's
// nodes are stored, content-addressed, so a proof can be made at any block whose state root's
// nodes are in the archive (dev, import; not a replica that does not --verify, which stores none).
import type { Common } from "@ethereumjs/common";
import { createMerkleProof, MerklePatriciaTrie } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { ServerError } from "../services/errors.ts";
import type { ProofService } from "../services/proofs.ts";
import { BufferedTrieDb, type TrieNodeSource } from "./trieDb.ts";

export function createProofService(common: Common, nodes: TrieNodeSource): ProofService {
  const db = new BufferedTrieDb(nodes);
  const trieAt = (root: Uint8Array) => {
    if (nodes.trieNode(root) === undefined)
      throw new ServerError(
        "proofs are not available: the archive holds no trie nodes for this state",
      );
    return new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: "view", common });
  };
  return {
    async account(stateRoot, address) {
      const trie = trieAt(stateRoot);
      const proof = await createMerkleProof(trie, address);
      const raw = await trie.get(address);
      if (raw === null) return { proof, storageRoot: undefined };
      const [, , storageRoot] = RLP.decode(raw) as Uint8Array[];
      return { proof, storageRoot };
    },
    storage: (storageRoot, slot) => createMerkleProof(trieAt(storageRoot), slot),
    holds: (stateRoot) => nodes.trieNode(stateRoot) !== undefined,
  };
}
