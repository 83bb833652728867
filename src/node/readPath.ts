// A reader's read path: the steps a call takes from the dispatcher to its method, declared once
// here, outermost first, each a `MethodLayer` (rpc/method.ts) that passes a method it has
// nothing to do for straight on:
//   1. entry: catch up with the position fence (a reader of --rpc-workers: another reader may
//      already have shown a newer flashblock or head to the same client), wait while anvil_reset
//      rebuilds the chain's methods, then run the current chain's;
//   2. past (a chain forked from a live one: dev --fork-url, follow, their replicas): a read the
//      resolver places in the upstream's past goes there (rpc/fork/pastRoutes.ts);
//   3. misses (idem): state the chain never wrote is fetched in one batch and the handler run
//      again (services/stateMisses.ts);
//   4. the method (rpc/methods.ts), which resolves its block through rpc/resolveBlock.ts.
// Steps 2–4 are the chain's (rebuilt when anvil_reset replaces it); step 1 is the reader's.
import type { Logger } from "../log/logger.ts";
import { layered, type MethodLayer, type MethodRegistry } from "../rpc/method.ts";
import { perRun } from "../util/perRun.ts";
import type { ChainView } from "./chainView.ts";
import type { PositionFence } from "./positionFence.ts";

/**
 * How long a call waits for an update the fence says another reader may have shown. A reader is
 * normally behind by well under a millisecond, but on a loaded machine (four test files on two
 * cores) it can be scheduled late by hundreds; 250 ms was suspected of a stale answer there.
 * Past this, it answers anyway.
 */
const FENCE_WAIT_MS = 2_000;

/** The steps a forked chain adds (2 and 3), given by its fork view. */
export type ChainSteps = readonly MethodLayer[];

export type ReadPath = {
  /** The methods the frontend serves, the same registry across rebuilds. */
  readonly methods: MethodRegistry;
  /** Replaces the chain's methods once `done` settles (anvil_reset); calls wait meanwhile. */
  rebuild(done: Promise<{ own: MethodRegistry; steps: ChainSteps }>): Promise<void>;
};

export function createReadPath(
  own: MethodRegistry,
  steps: ChainSteps,
  fence:
    | {
        readonly fence: PositionFence;
        readonly chainView: ChainView;
        /** Where a wait past FENCE_WAIT_MS is reported (its answer may be older than one shown). */
        readonly logger: Logger;
      }
    | undefined,
): ReadPath {
  let current = layered(own, steps);
  let rebuilding: Promise<void> | undefined;
  // The fence is read once per synchronous run (a batch's calls share the read): every call of
  // a run was sent before its client saw any answer of it, so a newer position written
  // meanwhile cannot have been shown to that client.
  const fencePosition = fence === undefined ? undefined : perRun(() => fence.fence.read());
  const entry: MethodLayer = (name) => (args, ctx, raw) => {
    const run = () => current[name]!.handler(args, ctx, raw);
    const unlessRebuilding = () => (rebuilding === undefined ? run() : rebuilding.then(run));
    if (fence === undefined || fencePosition === undefined) return unlessRebuilding();
    const at = fencePosition();
    if (at <= fence.chainView.position()) return unlessRebuilding();
    return fence.chainView.waitForPosition(at, FENCE_WAIT_MS).then((reached) => {
      if (!reached)
        fence.logger.warn(
          { method: name, fence: at, position: fence.chainView.position(), ms: FENCE_WAIT_MS },
          "answering behind the position fence: this reader's update did not come in time",
        );
      return unlessRebuilding();
    });
  };
  return {
    methods: layered(current, [entry]),
    rebuild(done) {
      const replaced = done.then((next) => {
        current = layered(next.own, next.steps);
      });
      rebuilding = replaced.finally(() => {
        rebuilding = undefined;
      });
      return rebuilding;
    },
  };
}
