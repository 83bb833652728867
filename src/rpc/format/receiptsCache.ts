// Rendered receipts of sealed blocks, kept by block hash: a sealed block never changes, so its
// eth_getBlockReceipts answer is built once and its bytes then written into every response (see
// rpc/splicedBody.ts for why bytes, not a string). Bounded by total bytes; the least recently
// used blocks go first.
import { bytesToUnprefixedHex } from "../../util/hex.ts";

export const RECEIPTS_CACHE_BYTES = 16 * 1024 * 1024;

export class ReceiptsJsonCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes = RECEIPTS_CACHE_BYTES) {}

  /**
   * The UTF-8 JSON of a sealed block's receipts (never the pending block's); `render` runs on a
   * miss and may answer undefined (not stored), which is not cached.
   */
  get(blockHash: Uint8Array, render: () => string | undefined): Buffer | undefined {
    const key = bytesToUnprefixedHex(blockHash);
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-insert: Map order is the recency order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const rendered = render();
    if (rendered === undefined) return undefined;
    const json = Buffer.from(rendered);
    if (json.length > this.maxBytes) return json;
    this.entries.set(key, json);
    this.bytes += json.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
    return json;
  }
}
