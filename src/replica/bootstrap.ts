// A new replica's first step. An empty datadir follows the block stream from block 0, unless the
// stream's retention has dropped block 0: then it restores the newest snapshot that reaches the
// stream's first block, and follows from the snapshot's head + 1.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log/logger.ts";
import { pause } from "../util/abort.ts";
import { forkFirstBlock } from "./blockConsumer.ts";
import type { NatsContext, NatsLink } from "./natsLink.ts";
import { latestSnapshot, restoreSnapshot, type SnapshotInfo } from "./snapshots.ts";
import type { StreamNames } from "./streams.ts";

const RETRY_MS = 1_000;

/** The oldest block a new archive can start from: 0, or (retention) the stream's first block. */
async function oldestAvailable(c: NatsContext, names: StreamNames): Promise<number> {
  const info = await c.jsm.streams.info(names.blocks).catch(() => undefined);
  // No stream yet, or one that never held a block: the sequencer will publish from block 0.
  if (info === undefined || info.state.last_seq === 0) return 0;
  const first = await c.firstBlock(names);
  // Everything has expired (a sequencer down for longer than the retention): any snapshot does.
  return first ?? Number.POSITIVE_INFINITY;
}

/**
 * Restores a snapshot into `datadir` when it has no archive and the stream cannot give it block
 * 0; waits (saying why, once) until a usable snapshot exists. Undefined when none was needed.
 */
export async function bootstrapArchive(opts: {
  readonly link: NatsLink;
  readonly names: StreamNames;
  readonly datadir: string;
  readonly logger: Logger;
  /** Aborted: it stops waiting (undefined, nothing restored). */
  readonly stop?: AbortSignal;
}): Promise<SnapshotInfo | undefined> {
  const { link, names, datadir, logger, stop } = opts;
  if (existsSync(join(datadir, "archive"))) return undefined;
  let said = "";
  const stopped = () => stop?.aborted === true;
  while (!stopped()) {
    let why: string;
    try {
      const c = await link.ready(stop);
      const first = await oldestAvailable(c, names);
      // A forked chain's stream starts at its first block F: an archive starts there too.
      if (first === 0 || (await forkFirstBlock(c, names)) === first) return undefined;
      const snapshot = await latestSnapshot(c.nc, names);
      if (
        snapshot !== undefined &&
        (first === Number.POSITIVE_INFINITY || snapshot.block + 1 >= first)
      ) {
        logger.info(
          { block: snapshot.block, bytes: snapshot.bytes },
          "the block stream no longer starts at block 0: restoring the archive from a snapshot",
        );
        const started = Date.now();
        const restored = await restoreSnapshot(c.nc, names, datadir);
        logger.info(
          { block: restored.block, ms: Date.now() - started },
          "archive restored from a snapshot; following the block stream from the next block",
        );
        return restored;
      }
      const from =
        first === Number.POSITIVE_INFINITY ? "holds no block" : `starts at block ${first}`;
      why =
        snapshot === undefined
          ? `the block stream ${from} and bucket ${names.snapshots} holds no snapshot: waiting for one (flashnode dev --nats-snapshot-every N)`
          : `the block stream ${from} and the newest snapshot ends at block ${snapshot.block}: waiting for a newer one`;
    } catch (e) {
      if (stopped()) break;
      why = `restoring a snapshot failed (${(e as Error).message}); retrying`;
    }
    if (why !== said) logger.warn(why);
    said = why;
    await pause(RETRY_MS, stop);
  }
  return undefined;
}
