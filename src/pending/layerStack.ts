// The pre-confirmed block's state: its flashblocks' layers, newest first, each immutable. A read
// looks through them newest to oldest (the caller reads the parent's state after them); a new
// flashblock adds one layer, so applying it costs its own size, never the block's. A long block's
// older layers are merged (nextMerge): a read probes at most MAX_LAYERS layers, and an entry is
// copied O(log n) times in all.
import type { AccountRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import {
  addressHash,
  codeKeyHash,
  HAS_SLOTS,
  SETS_ACCOUNT,
  slotHash,
  WIPED,
  word,
} from "./layerLayout.ts";
import { mergeLayers } from "./layerWriter.ts";
import { StateLayer } from "./stateLayer.ts";

/** The most layers a read probes (measured against others: bench/pendingLayers.ts). */
export const MAX_LAYERS = 16;

/** What a read finds when no layer wrote the key: the parent's state answers. */
export const UNWRITTEN: unique symbol = Symbol("unwritten");

const EMPTY = new Uint8Array(0);

/** Sees every write of a stack once, as the stack reads (what a newer layer hid is not seen). */
export type WriteVisitor = {
  account(address: Uint8Array, account: AccountRecord | undefined): void;
  /** Storage cleared: slots not visited read as zero. */
  wiped(address: Uint8Array): void;
  slot(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void;
};

export class LayerStack {
  static readonly EMPTY = new LayerStack([]);

  private constructor(
    /** Newest first. */
    readonly layers: readonly StateLayer[],
  ) {}

  /** The stack of these layers' memory (newest first), as a call worker receives it. */
  static fromBuffers(buffers: readonly ArrayBufferLike[]): LayerStack {
    return new LayerStack(buffers.map((b) => StateLayer.wrap(b)));
  }

  buffers(): ArrayBufferLike[] {
    return this.layers.map((l) => l.buffer);
  }

  /**
   * This stack with `layer` on top (itself when there is none), merged as `nextMerge` says
   * (`maxLayers`: another bound, for bench/pendingLayers.ts to compare).
   */
  with(layer: StateLayer | undefined, maxLayers = MAX_LAYERS): LayerStack {
    if (layer === undefined) return this;
    const layers = [layer, ...this.layers];
    for (;;) {
      const i = nextMerge(
        layers.map((l) => l.byteLength),
        maxLayers,
      );
      if (i === undefined) break;
      layers.splice(i, 2, mergeLayers(layers[i]!, layers[i + 1]!));
    }
    return new LayerStack(layers);
  }

  account(address: Uint8Array): AccountRecord | undefined | typeof UNWRITTEN {
    const layers = this.layers;
    if (layers.length === 0) return UNWRITTEN;
    const h = addressHash(address);
    for (const layer of layers) {
      const e = layer.findAddress(address, h);
      if ((layer.flags(e) & SETS_ACCOUNT) !== 0) return layer.account(e);
    }
    return UNWRITTEN;
  }

  /** A slot's value (leading zeros trimmed; empty once wiped), or UNWRITTEN. */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | typeof UNWRITTEN {
    const layers = this.layers;
    if (layers.length === 0) return UNWRITTEN;
    const h = addressHash(address);
    let sh = -1;
    let key = slot;
    for (const layer of layers) {
      const flags = layer.flags(layer.findAddress(address, h));
      if ((flags & HAS_SLOTS) !== 0) {
        if (sh < 0) {
          key = word(slot);
          sh = slotHash(h, key);
        }
        const e = layer.findSlot(address, 0, key, 0, sh);
        if (e !== 0) return layer.slotValue(e);
      }
      if ((flags & WIPED) !== 0) return EMPTY;
    }
    return UNWRITTEN;
  }

  /** Code the block deployed, by its hash; undefined when it deployed no such code. */
  code(codeHash: Uint8Array): Uint8Array | undefined {
    const layers = this.layers;
    if (layers.length === 0) return undefined;
    const h = codeKeyHash(codeHash);
    for (const layer of layers) {
      const e = layer.findCode(codeHash, h);
      if (e !== 0) return layer.code(e);
    }
    return undefined;
  }

  /** Each write as the stack reads it: an account, a wipe, a slot, each seen once. */
  forEachWrite(visit: WriteVisitor): void {
    const seen = new Set<string>();
    const key = bytesToUnprefixedHex;
    const wipedAbove = (address: Uint8Array, below: number) => {
      const h = addressHash(address);
      for (let i = 0; i < below; i++) {
        const layer = this.layers[i]!;
        if ((layer.flags(layer.findAddress(address, h)) & WIPED) !== 0) return true;
      }
      return false;
    };
    this.layers.forEach((layer, depth) => {
      layer.eachAddress((e) => {
        const address = layer.addressOf(e);
        const flags = layer.flags(e);
        const id = `a${key(address)}`;
        if ((flags & SETS_ACCOUNT) !== 0 && !seen.has(id)) {
          seen.add(id);
          visit.account(address, layer.account(e));
        }
        if ((flags & WIPED) !== 0 && !seen.has(`w${id}`)) {
          seen.add(`w${id}`);
          visit.wiped(address);
        }
      });
      layer.eachSlot((e) => {
        const address = layer.addressOf(e);
        const slot = layer.slotOf(e);
        const id = `s${key(address)}${key(slot)}`;
        if (seen.has(id) || wipedAbove(address, depth)) return;
        seen.add(id);
        visit.slot(address, slot, layer.slotValue(e));
      });
    });
  }
}

/**
 * Which adjacent layers to merge next (`i` and `i + 1`, by their sizes, newest first), if any.
 * The newest `maxLayers - 6` are kept as they came: a Base block (flashblock 0 and 10 more)
 * never merges. Older ones are kept as a binary counter, each at least twice the size of the
 * one before it, so an entry is copied O(log n) times however the block's flashblocks vary
 * (a burst, then a trickle), and they are O(log n) layers. Past `maxLayers`, the adjacent pair
 * of least size merges.
 */
export function nextMerge(sizes: readonly number[], maxLayers: number): number | undefined {
  const young = Math.max(1, maxLayers - 6);
  if (young + 1 < sizes.length && sizes[young]! * 2 > sizes[young + 1]!) return young;
  if (sizes.length <= maxLayers) return undefined;
  let best = 0;
  for (let i = 1; i + 1 < sizes.length; i++)
    if (sizes[i]! + sizes[i + 1]! < sizes[best]! + sizes[best + 1]!) best = i;
  return best;
}
