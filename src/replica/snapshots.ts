// Snapshots of the archive in a JetStream object store (docs/replicas.md), so that a replica can
// start when the block stream's retention has dropped the blocks it would need: it restores the
// newest snapshot, then follows the stream from the snapshot's head + 1.
//
// A snapshot is LMDB's own compacted copy of the environment (one read transaction, so it is one
// consistent block boundary), uploaded as one object; its metadata says which block it ends at.
// The sequencer and any replica may store one (`--nats-snapshot-every N`); a newer one replaces
// the older, and one older than what the bucket holds is not uploaded.
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { StorageType } from "@nats-io/jetstream";
import { type ObjectInfo, type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../log/logger.ts";
import { createChainStore } from "../store/chainStore.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { SCHEMA_VERSION } from "../store/tables.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex } from "../util/hex.ts";
import { FORMAT } from "./codec.ts";
import type { NatsLink } from "./natsLink.ts";
import type { StreamNames } from "./streams.ts";

/** The one object of the bucket: the newest snapshot. */
export const SNAPSHOT_OBJECT = "archive";

export type SnapshotInfo = {
  /** The archive's head in the snapshot. */
  readonly block: number;
  readonly hash: string;
  readonly schema: number;
  readonly bytes: number;
};

export class SnapshotError extends FlashnodeError {
  readonly code = "SNAPSHOT_UNUSABLE";
}

function infoOf(o: ObjectInfo | null): SnapshotInfo | undefined {
  const m = o?.metadata;
  if (o === null || o.deleted || m?.block === undefined) return undefined;
  return {
    block: Number(m.block),
    hash: m.hash ?? "",
    schema: Number(m.schema),
    bytes: o.size,
  };
}

async function openBucket(
  nc: NatsConnection,
  names: StreamNames,
  create: { replicas: number } | undefined,
): Promise<ObjectStore | undefined> {
  const objm = new Objm(nc);
  try {
    return await objm.open(names.snapshots);
  } catch {
    // Absent (or unreadable): created when asked to, else there is no snapshot to read.
    if (create === undefined) return undefined;
    return objm.create(names.snapshots, {
      storage: StorageType.File,
      replicas: create.replicas,
      description: "flashnode archive snapshots",
    });
  }
}

/** The newest snapshot in the bucket, if there is one. */
export async function latestSnapshot(
  nc: NatsConnection,
  names: StreamNames,
): Promise<SnapshotInfo | undefined> {
  const os = await openBucket(nc, names, undefined);
  return os === undefined ? undefined : infoOf(await os.info(SNAPSHOT_OBJECT));
}

/** The head block and hash of the archive in `datadir`, read from a fresh read-only open. */
async function headOf(datadir: string): Promise<{ block: number; hash: string }> {
  const env = openKvEnv(datadir, { readOnly: true });
  try {
    const store = createChainStore(env);
    const block = store.headNumber();
    const hash = block === undefined ? undefined : store.canonicalHash(block);
    if (block === undefined || hash === undefined) throw new SnapshotError("the archive is empty");
    return { block, hash: bytesToHex(hash) };
  } finally {
    await env.close();
  }
}

/** Copies the archive and uploads the copy; undefined when the bucket already holds a newer one. */
export async function storeSnapshot(
  env: KvEnv,
  nc: NatsConnection,
  names: StreamNames,
  replicas: number,
): Promise<SnapshotInfo | undefined> {
  const work = join(dirname(env.path), "snapshot.tmp");
  rmSync(work, { recursive: true, force: true });
  try {
    await env.backup(join(work, "archive"));
    const head = await headOf(work);
    const os = await openBucket(nc, names, { replicas });
    if (os === undefined) throw new SnapshotError(`cannot create bucket ${names.snapshots}`);
    const held = infoOf(await os.info(SNAPSHOT_OBJECT));
    if (held !== undefined && held.block >= head.block) return undefined;
    const file = createReadStream(join(work, "archive", "data.mdb"));
    const info = await os.put(
      {
        name: SNAPSHOT_OBJECT,
        description: `archive at block ${head.block}`,
        metadata: {
          block: String(head.block),
          hash: head.hash,
          schema: String(SCHEMA_VERSION),
          format: FORMAT,
        },
      },
      Readable.toWeb(file) as unknown as ReadableStream<Uint8Array>,
    );
    return infoOf(info);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Downloads the newest snapshot into `datadir` as its archive. The download goes to a side
 * directory and is renamed into place only once complete and checked (digest, schema, head), so
 * a replica killed mid-download starts over with no half archive.
 */
export async function restoreSnapshot(
  nc: NatsConnection,
  names: StreamNames,
  datadir: string,
): Promise<SnapshotInfo> {
  const os = await openBucket(nc, names, undefined);
  const result = os === undefined ? null : await os.get(SNAPSHOT_OBJECT);
  const info = result === null ? undefined : infoOf(result.info);
  if (result === null || info === undefined)
    throw new SnapshotError(`bucket ${names.snapshots} holds no snapshot`);
  if (info.schema !== SCHEMA_VERSION)
    throw new SnapshotError(
      `the snapshot has archive schema ${info.schema}; this flashnode reads ${SCHEMA_VERSION}`,
    );
  const work = join(datadir, "restore.tmp");
  rmSync(work, { recursive: true, force: true });
  try {
    const dir = join(work, "archive");
    mkdirSync(dir, { recursive: true });
    await pipeline(
      Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>),
      createWriteStream(join(dir, "data.mdb")),
    );
    const failed = await result.error;
    if (failed) throw new SnapshotError(`snapshot download failed: ${failed.message}`);
    const head = await headOf(work);
    if (head.block !== info.block || head.hash !== info.hash)
      throw new SnapshotError(
        `the snapshot's archive ends at block ${head.block} ${head.hash}; its metadata says ${info.block} ${info.hash}`,
      );
    rmSync(join(dir, "lock.mdb"), { force: true });
    if (existsSync(join(datadir, "archive")))
      throw new SnapshotError(`${datadir} already holds an archive`);
    renameSync(dir, join(datadir, "archive"));
    return info;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export type Snapshotter = {
  /** After each stored block: takes a snapshot when `every` blocks passed since the last one. */
  blockStored(head: number): void;
  close(): Promise<void>;
};

/** Stores a snapshot every `every` blocks (one at a time, in the background); 0: never. */
export function startSnapshotter(opts: {
  readonly link: NatsLink;
  readonly names: StreamNames;
  readonly env: KvEnv;
  readonly every: number;
  readonly replicas: number;
  readonly logger: Logger;
}): Snapshotter {
  const { link, names, env, every, logger } = opts;
  let last: number | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  let failing = false;
  const take = async (head: number) => {
    const c = link.current();
    if (c === undefined) return;
    if (last === undefined) {
      last = (await latestSnapshot(c.nc, names))?.block ?? -1;
      if (head - last < every) return;
    }
    const started = Date.now();
    const stored = await storeSnapshot(env, c.nc, names, opts.replicas);
    failing = false;
    if (stored === undefined) {
      last = (await latestSnapshot(c.nc, names))?.block ?? last;
      return;
    }
    last = stored.block;
    logger.info(
      { block: stored.block, bytes: stored.bytes, ms: Date.now() - started },
      "archive snapshot stored",
    );
  };
  return {
    blockStored(head) {
      if (every <= 0 || closed || running !== undefined) return;
      if (last !== undefined && head - last < every) return;
      running = take(head)
        .catch((e: unknown) => {
          if (!failing) logger.warn({ err: e }, "storing an archive snapshot failed; will retry");
          failing = true;
        })
        .finally(() => {
          running = undefined;
        });
    },
    async close() {
      closed = true;
      await running;
    },
  };
}
