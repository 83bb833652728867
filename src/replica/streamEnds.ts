// What a writer reads of the streams when it starts a term (publisher.ts): where each one ends —
// its last sequence (what its next write expects), the block stream's newest block and the chain
// its messages name, the flashblock stream's last update — read before anything is written.
import { decodeChainUpdate } from "./codec.ts";
import { markOf, type StreamTail } from "./handover.ts";
import type { NatsContext } from "./natsLink.ts";
import { completesMessage, PART_HEADER, PartJoiner, parsePart } from "./parts.ts";
import { HEADER, type StreamNames } from "./streams.ts";

/** The header naming a stream position (flashblock stream messages). */
export const POSITION_HEADER = "Flashnode-Position";

export type BlockStreamEnd = {
  /** The stream's last sequence (0: empty). */
  readonly lastSeq: number;
  /** The newest block published whole (a block cut short between its parts is not). */
  readonly lastBlock: number | undefined;
  /** The chain the newest message names (its `Flashnode-Genesis`). */
  readonly genesis: string | undefined;
};

export async function blockStreamEnd(c: NatsContext, names: StreamNames): Promise<BlockStreamEnd> {
  const info = await c.jsm.streams.info(names.blocks);
  const lastSeq = info.state.last_seq;
  if (info.state.messages === 0) return { lastSeq, lastBlock: undefined, genesis: undefined };
  const m = await c.jsm.streams.getMessage(names.blocks, { seq: lastSeq });
  const n = m?.header.get(HEADER.block);
  const genesis = m?.header.get(HEADER.genesis) || undefined;
  if (n === undefined || n === "") return { lastSeq, lastBlock: undefined, genesis };
  const whole = completesMessage(m?.header.get(PART_HEADER));
  const lastBlock = whole ? Number(n) : Number(n) > 0 ? Number(n) - 1 : undefined;
  return { lastSeq, lastBlock, genesis };
}

/** The flashblock stream's last sequence, and its last update (undefined: none). */
export async function flashblockStreamEnd(
  c: NatsContext,
  names: StreamNames,
): Promise<{ readonly lastSeq: number; readonly tail: StreamTail | undefined }> {
  const info = await c.jsm.streams.info(names.flashblocks);
  const lastSeq = info.state.last_seq;
  if (info.state.messages === 0) return { lastSeq, tail: undefined };
  const last = await c.jsm.streams.getMessage(names.flashblocks, { seq: lastSeq });
  const position = Number(last?.header.get(POSITION_HEADER) ?? Number.NaN);
  if (last === null || last === undefined || !Number.isFinite(position))
    return { lastSeq, tail: undefined };
  // An update sent in parts ends with its last part: the others are just before it.
  const part = parsePart(last.header.get(PART_HEADER));
  if (part !== undefined && part.index !== part.count - 1)
    return { lastSeq, tail: { position, mark: undefined } };
  const joiner = new PartJoiner();
  let whole: Uint8Array | undefined;
  const first = lastSeq - (part === undefined ? 0 : part.count - 1);
  for (let seq = first; seq <= lastSeq; seq++) {
    const m = seq === lastSeq ? last : await c.jsm.streams.getMessage(names.flashblocks, { seq });
    if (m === null || m === undefined) return { lastSeq, tail: { position, mark: undefined } };
    whole = joiner.add(m.header.get(PART_HEADER), m.data);
  }
  if (whole === undefined) return { lastSeq, tail: { position, mark: undefined } };
  try {
    const u = decodeChainUpdate(whole, last.header.get(HEADER.format));
    return { lastSeq, tail: { position, mark: markOf(u) } };
  } catch {
    return { lastSeq, tail: { position, mark: undefined } };
  }
}
