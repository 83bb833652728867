// A replica's archive follows the block stream: from its head + 1 (an empty archive from block
// 0), one LMDB write per block. The archive's head is the cursor: the block and the position
// commit in the same write, so a replica killed at any moment resumes with no gap and no
// duplicate, and a block delivered twice (a redelivery, a sequencer that republished after a
// crash) is recognised by its number and skipped.

import { RLP } from "@ethereumjs/rlp";
import { DeliverPolicy } from "@nats-io/jetstream";
import type { Logger } from "../log/logger.ts";
import type { ChainStore } from "../store/archive.ts";
import { pause } from "../util/abort.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToUnprefixedHex, equalBytes } from "../util/hex.ts";
import { blockWriteOf, chainOrigin } from "./blockMessage.ts";
import { forkPoint, hashOfMessageId, REVERT_HEADER } from "./chainFork.ts";
import { type BlockMessage, decodeBlockMessage, FORMAT } from "./codec.ts";
import type { NatsContext, NatsLink } from "./natsLink.ts";
import { PART_HEADER, PartJoiner, parsePart } from "./parts.ts";
import { watchForStall } from "./stallWatchdog.ts";
import { HEADER, type StreamNames } from "./streams.ts";
import { BlockVerificationError, type BlockVerifier } from "./verifier.ts";

/** A block consumer silent this long while the stream holds newer blocks is created anew. */
const STALL_MS = 3_000;

export class StreamRetentionError extends FlashnodeError {
  readonly code = "REPLICA_NEEDS_SNAPSHOT";
}

export type BlockConsumer = {
  /** Blocks the stream holds that the archive has not stored, and how old the last stored one was. */
  lag(): { readonly blocks: number; readonly seconds: number };
  close(): Promise<void>;
};

/** A block that does not extend the archive's chain: the consumer finds where they part. */
class ChainMismatchError extends FlashnodeError {
  readonly code = "CHAIN_MISMATCH";
}

/** The archive holds another chain than the stream carries: nothing to follow here. */
export class OtherChainError extends FlashnodeError {
  readonly code = "OTHER_CHAIN";
}

/** The stream's chain (its genesis hash, hex) against the archive's; throws when they differ. */
function checkSameChain(store: ChainStore, streamGenesis: string | undefined): void {
  if (streamGenesis === undefined || streamGenesis === "") return;
  const ours = chainOrigin(store);
  if (ours === undefined || bytesToUnprefixedHex(ours) === streamGenesis) return;
  throw new OtherChainError(
    `${store.env.path.replace(/\/archive$/, "")} holds another chain (genesis 0x${bytesToUnprefixedHex(ours)}) than the block stream (genesis 0x${streamGenesis}): use a new --datadir for this replica`,
  );
}

/** The genesis hash the stream's newest block message carries, if any. */
async function streamGenesis(c: NatsContext, names: StreamNames): Promise<string | undefined> {
  const info = await c.jsm.streams.info(names.blocks).catch(() => undefined);
  if (info === undefined || info.state.messages === 0) return undefined;
  const m = await c.jsm.streams.getMessage(names.blocks, { seq: info.state.last_seq });
  return m?.header.get(HEADER.genesis);
}

/** A header's parent hash (the first field of its RLP). */
function parentHashOf(headerRlp: Uint8Array): Uint8Array {
  return (RLP.decode(headerRlp) as Uint8Array[])[0]!;
}

/**
 * Where to read from: after the newest message of the head's block when the stream's chain
 * still has it; else (an evm_revert the archive missed) after the last block both share, the
 * archive unwound to it first; else (nothing shared, retention) as for an empty archive's gap.
 */
async function resume(
  c: NatsContext,
  names: StreamNames,
  store: ChainStore,
  onUnwound: (to: number) => void,
): Promise<number> {
  const head = store.headNumber();
  if (head === undefined) return startSequence(c, names, (await forkFirstBlock(c, names)) ?? 0);
  const fork = await forkPoint(c, names, store, head);
  if (fork === undefined) return startSequence(c, names, head + 1);
  if (fork.number < head) {
    store.revertTo(fork.number, []);
    onUnwound(fork.number);
  }
  return fork.seq + 1;
}

/**
 * A forked chain's first block F, when the block stream starts with it (its message carries the
 * fork's record): a new archive starts there, not at block 0.
 */
export async function forkFirstBlock(
  c: NatsContext,
  names: StreamNames,
): Promise<number | undefined> {
  const info = await c.jsm.streams.info(names.blocks).catch(() => undefined);
  if (info === undefined || info.state.messages === 0) return undefined;
  const m = await c.jsm.streams.getMessage(names.blocks, { seq: info.state.first_seq });
  // A revert marker, or a block of a format this node does not read: not a fork's first block.
  if (m === null || m === undefined || m.header.get(HEADER.format) !== FORMAT) return undefined;
  // A message in parts: the rest follow it (parts.ts).
  const joiner = new PartJoiner();
  let whole = joiner.add(m.header.get(PART_HEADER), m.data);
  for (let seq = m.seq + 1; whole === undefined && joiner.pending; seq++) {
    const next = await c.jsm.streams.getMessage(names.blocks, { seq });
    if (next === null || next === undefined) return undefined;
    whole = joiner.add(next.header.get(PART_HEADER), next.data);
  }
  return whole === undefined ? undefined : decodeBlockMessage(whole, FORMAT).forkBase?.number;
}

/** The stream sequence to start from for block `want`. */
async function startSequence(c: NatsContext, names: StreamNames, want: number): Promise<number> {
  const m = await c.jsm.streams
    .getMessage(names.blocks, { last_by_subj: names.blockSubject(want) })
    .catch(() => null);
  // The newest message of a block sent in parts is its last part: the block starts at its first.
  if (m !== null && m !== undefined)
    return m.seq - (parsePart(m.header.get(PART_HEADER))?.index ?? 0);
  const first = await c.firstBlock(names);
  if (first !== undefined && first > want)
    throw new StreamRetentionError(
      `the block stream starts at block ${first}; this archive needs block ${want} (start it from a snapshot)`,
    );
  // Not published yet: everything from the stream's end on.
  const info = await c.jsm.streams.info(names.blocks);
  return info.state.last_seq + 1;
}

export function consumeBlocks(opts: {
  readonly link: NatsLink;
  readonly names: StreamNames;
  readonly store: ChainStore;
  readonly logger: Logger;
  /** After each block's commit. */
  readonly onBlock: (m: BlockMessage) => void;
  /** After the archive went back to block `to` (the sequencer's evm_revert). */
  readonly onUnwound?: (to: number) => void;
  /** `--verify`: each block executed and checked before it is stored. */
  readonly verifier?: BlockVerifier;
  /** The consumer cannot go on (the stream carries another chain); it has stopped. */
  readonly onFatal?: (e: Error) => void;
}): BlockConsumer {
  const { link, names, store, logger } = opts;
  let closed = false;
  /** Aborted by close(): the loop's waits (a connection, a retry's pause) end at once. */
  const closing = new AbortController();
  let stop: () => void = () => {};
  let streamHead: number | undefined;
  let lagSeconds = 0;
  let failing = false;
  /** The first block of an empty archive: 0, or a forked chain's F. */
  let firstOwn: number | undefined;
  const unwound = (to: number) => {
    logger.info({ block: to }, "the sequencer's chain went back (evm_revert): so did this archive");
    opts.verifier?.reset();
    opts.onUnwound?.(to);
  };
  // A consumer is server state: after a reconnection (a restarted server) or a silence while the
  // stream has grown, it is created anew from the archive's head rather than trusted to resume.
  link.onReconnect(() => stop());
  const watchdog = watchForStall({
    link,
    stallMs: STALL_MS,
    behind: async (c) => ((await c.lastBlock(names)) ?? -1) > (store.headNumber() ?? -1),
    restart: () => stop(),
  });
  const loop = (async () => {
    while (!closed) {
      try {
        const c = await link.ready(closing.signal);
        checkSameChain(store, await streamGenesis(c, names));
        if (store.headNumber() === undefined) firstOwn = await forkFirstBlock(c, names);
        const seq = await resume(c, names, store, unwound);
        const consumer = await c.js.consumers.get(names.blocks, {
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: seq,
        });
        const messages = await consumer.consume();
        stop = () => messages.stop();
        if (closed) break;
        const joiner = new PartJoiner();
        for await (const m of messages) {
          watchdog.seen();
          // A block sent in parts is handled once its last part is in (parts.ts).
          const payload = joiner.add(m.headers?.get(PART_HEADER), m.data);
          if (payload === undefined) continue;
          const number = Number(m.headers?.get(HEADER.block));
          checkSameChain(store, m.headers?.get(HEADER.genesis));
          streamHead = Math.max(streamHead ?? 0, number + m.info.pending);
          const at = store.headNumber();
          const expected = at === undefined ? (firstOwn ?? 0) : at + 1;
          if (number < expected) {
            // The sequencer went back to this block (evm_revert): so does the archive.
            if (m.headers?.get(REVERT_HEADER) !== "1" || at === undefined || number === at)
              continue;
            const hash = hashOfMessageId(m.headers?.get("Nats-Msg-Id"));
            const ours = store.canonicalHash(number);
            if (ours === undefined || hash !== bytesToUnprefixedHex(ours))
              throw new ChainMismatchError(
                `the stream went back to block ${number} of another chain`,
              );
            store.revertTo(number, []);
            unwound(number);
            continue;
          }
          if (number !== expected)
            throw new Error(`block stream gap: block ${number} arrived, ${expected} expected`);
          const block = decodeBlockMessage(payload, m.headers?.get(HEADER.format));
          const parent = at === undefined ? undefined : store.canonicalHash(at);
          if (parent !== undefined && !equalBytes(parentHashOf(block.headerRlp), parent))
            throw new ChainMismatchError(`block ${number} does not extend this archive's chain`);
          if (block.forkBase !== undefined && opts.verifier !== undefined)
            throw new OtherChainError(
              "--verify executes every block, and a forked chain's state is partly its upstream's: follow it without --verify",
            );
          const write =
            opts.verifier === undefined ? blockWriteOf(block) : await opts.verifier.verify(block);
          // A new archive's first block, its config and (a fork) its record: one write.
          store.env.writeAtomically(() => {
            if (block.chainConfig !== undefined && store.chainConfig() === undefined)
              store.setChainConfig(block.chainConfig);
            if (block.forkBase !== undefined && at === undefined) store.setForkBase(block.forkBase);
            store.writeBlock(write);
          });
          opts.onBlock(block);
          failing = false;
          lagSeconds = m.info.pending === 0 ? 0 : (Date.now() - m.info.timestampNanos / 1e6) / 1000;
        }
      } catch (e) {
        if (closed) break;
        if (e instanceof OtherChainError) {
          closed = true;
          opts.onFatal?.(e);
          break;
        }
        // Said once per outage, not once per retry (each retry at debug).
        if (!failing) {
          if (e instanceof StreamRetentionError || e instanceof BlockVerificationError)
            logger.error({ err: e }, "replica cannot follow the block stream");
          else logger.warn({ err: e }, "following the block stream failed; retrying every second");
        } else logger.debug({ err: e }, "following the block stream failed again");
        failing = true;
        await pause(1000, closing.signal);
      }
    }
  })();
  return {
    lag() {
      const head = store.headNumber() ?? -1;
      return { blocks: Math.max(0, (streamHead ?? head) - head), seconds: lagSeconds };
    },
    async close() {
      closed = true;
      closing.abort();
      watchdog.stop();
      stop();
      await loop;
    },
  };
}
