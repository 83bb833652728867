// Rendered receipts of sealed blocks, kept by block hash: a sealed block never changes, so its
// eth_getBlockReceipts answer is built once and then spliced into every response. Bounded by
// total characters (flat one-byte strings: bytes); the least recently used blocks go first.
import { bytesToUnprefixedHex } from "../../util/hex.ts";

export const RECEIPTS_CACHE_CHARS = 16 * 1024 * 1024;

export class ReceiptsJsonCache {
  private readonly entries = new Map<string, string>();
  private chars = 0;

  constructor(private readonly maxChars = RECEIPTS_CACHE_CHARS) {}

  /**
   * The JSON of a sealed block's receipts (never the pending block's); `render` runs on a miss
   * and may answer undefined (not stored), which is not cached.
   */
  get(blockHash: Uint8Array, render: () => string | undefined): string | undefined {
    const key = bytesToUnprefixedHex(blockHash);
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-insert: Map order is the recency order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const rendered = render();
    if (rendered === undefined || rendered.length > this.maxChars) return rendered;
    // The rendered text is a rope of thousands of small concatenated pieces (about ten times
    // its length in heap); the cache keeps one flat copy, so the budget is the memory it holds.
    const json = Buffer.from(rendered).toString();
    this.entries.set(key, json);
    this.chars += json.length;
    for (const [k, v] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(k);
      this.chars -= v.length;
    }
    return json;
  }
}
