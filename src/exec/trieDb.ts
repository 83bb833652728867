// The key-value store behind the state trie. Reads fall through to the archive's trieNodes table;
// writes are buffered until the block is sealed, so they commit in the block's one atomic write
// (and vanish if the block is refused).
import type { BatchDBOp, DB } from "@ethereumjs/util";
import { hexToBytes } from "../util/hex.ts";

export type TrieNodeSource = { trieNode(key: Uint8Array): Uint8Array | undefined };

export class BufferedTrieDb implements DB<string, Uint8Array> {
  private pending = new Map<string, Uint8Array>();

  constructor(private readonly source: TrieNodeSource) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.pending.get(key) ?? this.source.trieNode(hexToBytes(key));
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    this.pending.set(key, value);
  }

  // Nodes are content-addressed and the archive keeps every state's nodes, so nothing is deleted.
  async del(_key: string): Promise<void> {}

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === "put") this.pending.set(op.key, op.value);
  }

  shallowCopy(): DB<string, Uint8Array> {
    return this;
  }

  async open(): Promise<void> {}

  /** The nodes written since the last call, handed over for the block's atomic write. */
  takePending(): Map<string, Uint8Array> {
    const out = this.pending;
    this.pending = new Map();
    return out;
  }

  discardPending(): void {
    this.pending = new Map();
  }
}
