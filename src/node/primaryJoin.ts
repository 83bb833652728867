// How a --rpc-workers reader process takes its primary's state: the join's answer (the block
// being built so far, the pool's nonces) and then every update and nonce sent after it, in the
// order the primary sent them.
//
// The answer and the first events after it can come in one read of the IPC pipe. Node hands
// each message of a read to its listener before any promise continuation runs, so the code
// awaiting the answer runs after the listeners of the events that followed it: an update taken
// at once would go into the stream before the block so far, whose flashblock 0 (or seal) then
// starts the stream's block over and drops it. A seal lost so leaves the reader showing its
// archive's head with that same block pending (`pending` answered the head's block) and the
// next block without its flashblock 0, until the next seal. So events wait for the answer.
import type { ChainUpdate } from "../pending/types.ts";
import type { JoinAnswer, ReaderLink } from "./readerLink.ts";
import type { NonceEntries } from "./readerProtocol.ts";
import type { UpdateStream } from "./updateStream.ts";

/** What a reader keeps of the primary's pool: each sender's next nonce (address hex → nonce). */
export type PoolNonceMap = Map<string, bigint>;

type Event =
  | { readonly kind: "updates"; readonly updates: readonly ChainUpdate[]; readonly sentAt: number }
  | { readonly kind: "poolNonces"; readonly entries: NonceEntries };

export async function joinPrimary(
  link: Pick<ReaderLink, "join" | "onUpdates" | "onPoolNonces" | "applied">,
  stream: UpdateStream,
  nonces: PoolNonceMap,
  /** Each update's delay from the primary to this reader (ms). */
  onRelay: (lagMs: number) => void,
): Promise<JoinAnswer> {
  const learn = (entries: NonceEntries) => {
    for (const [address, nonce] of entries) {
      const known = nonces.get(address);
      if (known === undefined || nonce > known) nonces.set(address, nonce);
    }
  };
  const take = (e: Event) => {
    if (e.kind === "poolNonces") learn(e.entries);
    else {
      for (const u of e.updates) {
        // evm_revert: the pool's next nonces are the state's again (sequencerClient.ts).
        if (u.kind === "sealed" && u.reverted !== undefined) nonces.clear();
        stream.publish(u);
      }
      onRelay(performance.timeOrigin + performance.now() - e.sentAt);
    }
    link.applied();
  };
  // Until the answer is taken: what came after it, in order.
  let early: Event[] | undefined = [];
  const arrived = (e: Event) => {
    if (early === undefined) take(e);
    else early.push(e);
  };
  link.onUpdates((updates, sentAt) => arrived({ kind: "updates", updates, sentAt }));
  link.onPoolNonces((entries) => arrived({ kind: "poolNonces", entries }));
  const joined = await link.join();
  learn(joined.poolNonces);
  for (const u of joined.updates) stream.publish(u);
  link.applied();
  const held = early;
  early = undefined;
  for (const e of held) take(e);
  return joined;
}
