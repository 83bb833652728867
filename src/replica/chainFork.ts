// The block stream after an evm_revert (docs/replicas.md): the sequencer publishes the block it
// went back to once more, with the header `Flashnode-Revert`, then the new chain's blocks. The
// stream is a log: read in order, it says which blocks were dropped. A reader that starts in
// the middle, or a sequencer that crashed before saying so, finds where its archive and the
// stream's chain part: the newest message of each block's subject is that block of the newest
// chain that reached it.
import type { ChainStore } from "../store/archive.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import type { NatsContext } from "./natsLink.ts";
import type { StreamNames } from "./streams.ts";

/** Header of a block message that takes the chain back to that block (its value: "1"). */
export const REVERT_HEADER = "Flashnode-Revert";

/** The message id of a block message: `<number>:<hash hex>` (`:revert:<id>` for a revert). */
export function blockMessageId(number: number, hash: Uint8Array, revertId?: string): string {
  const id = `${number}:${bytesToUnprefixedHex(hash)}`;
  return revertId === undefined ? id : `${id}:revert:${revertId}`;
}

/** The hash (hex, no 0x) a block message's id names. */
export function hashOfMessageId(id: string | undefined): string | undefined {
  return id?.split(":")[1];
}

/** The newest message of block `number`'s subject: its stream sequence and block hash. */
export async function newestBlockMessage(
  c: NatsContext,
  names: StreamNames,
  number: number,
): Promise<{ seq: number; hash: string | undefined } | undefined> {
  const m = await c.jsm.streams
    .getMessage(names.blocks, { last_by_subj: names.blockSubject(number) })
    .catch(() => null);
  if (m === null || m === undefined) return undefined;
  return { seq: m.seq, hash: hashOfMessageId(m.header.get("Nats-Msg-Id")) };
}

/**
 * The highest block at or below `from` (and at or above `floor`: the archive's first block) that
 * the archive and the stream's newest chain share, with the sequence of its newest message;
 * undefined when none is found (the stream no longer holds the blocks, or holds none).
 */
export async function forkPoint(
  c: NatsContext,
  names: StreamNames,
  store: ChainStore,
  from: number,
  floor = 0,
): Promise<{ number: number; seq: number } | undefined> {
  for (let k = from; k >= floor; k--) {
    const m = await newestBlockMessage(c, names, k);
    if (m === undefined) return undefined;
    const ours = store.canonicalHash(k);
    if (ours !== undefined && m.hash === bytesToUnprefixedHex(ours))
      return { number: k, seq: m.seq };
  }
  return undefined;
}
