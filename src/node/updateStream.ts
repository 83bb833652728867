// The chain's updates as a node's producer publishes them (the sequencer, a replica's JetStream
// consumers, a follower of a live chain), fanned out to whoever shows them: the in-process
// reader, the --rpc-workers readers, the dev log. It keeps the block being built (from its
// flashblock 0, or the seal that carried it), so a subscriber that joins late starts from the
// same pending view as the others: there is no start-up order to get right and nothing to buffer
// by hand.
import type { ChainUpdate } from "../pending/types.ts";

/** `catchUp`: an update published before this subscriber joined (replayed as it joins). */
export type UpdateListener = (u: ChainUpdate, catchUp: boolean) => void;

export class UpdateStream {
  private current: ChainUpdate[] = [];
  private readonly listeners = new Set<UpdateListener>();

  publish(u: ChainUpdate): void {
    if (u.kind === "sealed" || u.index === 0) this.current = [u];
    else this.current.push(u);
    for (const l of this.listeners) l(u, false);
  }

  /** The block being built so far, from its flashblock 0 (or the seal that carried it). */
  currentBlock(): readonly ChainUpdate[] {
    return this.current;
  }

  /** Replays the block being built to `listener`, then hands it every update; returns the stop. */
  subscribe(listener: UpdateListener): () => void {
    for (const u of this.current) listener(u, true);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
