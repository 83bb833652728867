// A flashblock's diff as a state layer, laid out once per process however many parts of it take
// the update (the chain view, the primary's own view, the reader host sending it on): the
// layer is kept per update object. An update sent to a reader process carries the layer's bytes
// in place of the diff, so the reader copies them instead of laying them out again, with the
// diff's accounts in their order when the reader may render the /flashblocks JSON from them.
import { encodeLayer } from "./layerWriter.ts";
import { StateLayer } from "./stateLayer.ts";
import type { ChainUpdate, FlashblockUpdate } from "./types.ts";

const laidOut = new WeakMap<FlashblockUpdate, StateLayer | null>();
const NOTHING = new Uint8Array(0);

/** The flashblock's state layer (undefined: it writes nothing), laid out on first use. */
export function layerOf(u: FlashblockUpdate): StateLayer | undefined {
  const known = laidOut.get(u);
  if (known !== undefined) return known ?? undefined;
  const d = u.diff;
  const layer =
    "layer" in d
      ? d.layer.length === 0
        ? undefined
        : StateLayer.fromBytes(d.layer)
      : encodeLayer(d);
  laidOut.set(u, layer ?? null);
  return layer;
}

/** The update as it crosses to a reader process: each diff as its layer's bytes. */
export function withLaidOutDiffs(u: ChainUpdate): ChainUpdate {
  return u.kind === "sealed" ? { ...u, next: laidOutFlashblock(u.next) } : laidOutFlashblock(u);
}

function laidOutFlashblock(u: FlashblockUpdate): FlashblockUpdate {
  if ("layer" in u.diff) return u;
  const layer = layerOf(u)?.bytes ?? NOTHING;
  const onWire = u.wire !== undefined && u.wireJson === undefined;
  return { ...u, diff: onWire ? { layer, accounts: u.diff.accounts } : { layer } };
}
