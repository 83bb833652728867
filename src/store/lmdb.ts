// The only file that imports the storage engine. Opens one LMDB environment per datadir with a
// named database per table of tables.ts.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Database, open, type RootDatabase } from "lmdb";
import { META_KEYS, TABLES, type TableName } from "./tables.ts";
import { SoonFlushes, untilVisible } from "./visibleCommit.ts";

export type KvTable = {
  get(key: Uint8Array): Uint8Array | undefined;
  /** Zero-copy read: the returned buffer is only valid until the next read on any table. */
  getFast(key: Uint8Array): Uint8Array | undefined;
  put(key: Uint8Array, value: Uint8Array): void;
  remove(key: Uint8Array): void;
  /** First entry with start <= key < end, if any. */
  first(start: Uint8Array, end: Uint8Array): { key: Uint8Array; value: Uint8Array } | undefined;
  /** Last entry with start <= key < end, if any. */
  last(start: Uint8Array, end: Uint8Array): { key: Uint8Array; value: Uint8Array } | undefined;
  range(start: Uint8Array, end: Uint8Array): Iterable<{ key: Uint8Array; value: Uint8Array }>;
  entryCount(): number;
  /** Removes every entry (inside writeAtomically: with the rest of that write). */
  clear(): void;
};

export type KvEnv = {
  readonly path: string;
  readonly readOnly: boolean;
  table(name: TableName): KvTable;
  /** Runs `fn` in one write transaction: all its puts commit together or not at all. */
  writeAtomically<T>(fn: () => T): T;
  /**
   * As writeAtomically, committed on lmdb's own write thread: resolves once the write is
   * committed (visible to every thread and process, in the OS page cache, so a killed process
   * loses nothing), while the flush to disk goes on after it (lmdb-js's overlappingSync, on by
   * default off Windows; visibleCommit.ts). A power loss can lose the last such writes, never the
   * database's consistency: LMDB opens at the last flushed commit. A flush that fails is thrown
   * by the next such write, or by close(). (writeAtomically's commit waits for the flush on the
   * calling thread, overlappingSync or not.)
   */
  writeAtomicallySoon<T>(fn: () => T): Promise<T>;
  sizeOnDisk(): number;
  /**
   * Writes a consistent, compacted copy of the environment (one read snapshot) into `dir`, which
   * becomes a datadir's archive directory. Runs off the event loop.
   */
  backup(dir: string): Promise<void>;
  /** Drops the cached read snapshot so the next read sees writes committed by another thread. */
  refresh(): void;
  /**
   * Changes whenever what a read sees may have changed in this thread (a write, a refresh).
   * lmdb-js keeps one read snapshot for a whole synchronous run (it renews it on a macrotask), so
   * a value read at one generation holds until the run ends or the generation moves.
   */
  generation(): number;
  /** False once close() has begun: readiness reports a closed store. */
  isOpen(): boolean;
  close(): Promise<void>;
};

export type OpenOptions = { readonly readOnly?: boolean; readonly noSync?: boolean };

function wrap(db: Database<Buffer, Buffer>): KvTable {
  return {
    get: (key) => db.getBinary(key as Buffer) ?? undefined,
    getFast: (key) => {
      const v = db.getBinaryFast(key as Buffer);
      // lmdb hands back its whole read buffer with `length` set to the value's: a view of
      // exactly the value, or whatever reads the typed array's own length (Node 24's
      // Buffer#slice, which RLP decoding calls) sees 16 MiB.
      return v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.length);
    },
    put: (key, value) => {
      db.putSync(key as Buffer, value as Buffer);
    },
    remove: (key) => {
      db.removeSync(key as Buffer);
    },
    first: (start, end) => {
      for (const e of db.getRange({
        start: start as Buffer,
        end: end as Buffer,
        limit: 1,
        snapshot: false,
      }))
        return e;
      return undefined;
    },
    last: (start, end) => {
      // Reverse scans start inclusive at `end`, which this contract excludes.
      for (const e of db.getRange({ start: end as Buffer, end: start as Buffer, reverse: true })) {
        if (Buffer.compare(e.key, end) >= 0) continue;
        return Buffer.compare(e.key, start) >= 0 ? e : undefined;
      }
      return undefined;
    },
    range: (start, end) => db.getRange({ start: start as Buffer, end: end as Buffer }),
    entryCount: () => (db.getStats() as { entryCount: number }).entryCount,
    clear: () => {
      db.clearSync();
    },
  };
}

export function openKvEnv(datadir: string, options: OpenOptions = {}): KvEnv {
  const path = join(datadir, "archive");
  const readOnly = options.readOnly ?? false;
  if (!readOnly) mkdirSync(path, { recursive: true });
  const root: RootDatabase = open({
    path,
    maxDbs: 64,
    readOnly,
    compression: false,
    noSync: options.noSync ?? false,
    // A reader never has to wait for the writer to grow the map.
    mapSize: 64 * 1024 * 1024 * 1024,
  });
  let envOpen = true;
  let generation = 0;
  /** writeAtomicallySoon's writes: how many, and their flushes. */
  const soon = {
    count: 0,
    // Unique to this opening: a token left by an earlier run never reads as this run's.
    run: Buffer.from(
      new Float64Array([performance.timeOrigin + performance.now(), Math.random()]).buffer,
    ),
    flushes: new SoonFlushes(),
  };
  const soonKey = Buffer.from(META_KEYS.soonWrite);
  const tables = new Map<TableName, KvTable>();
  for (const [name, def] of Object.entries(TABLES) as [TableName, { id: number; name: string }][]) {
    const db = root.openDB<Buffer, Buffer>({
      name: `${def.id}:${def.name}`,
      keyEncoding: "binary",
      encoding: "binary",
    });
    tables.set(name, wrap(db));
  }
  return {
    path,
    readOnly,
    table(name) {
      const t = tables.get(name);
      if (t === undefined) throw new Error(`unknown table ${name}`);
      return t;
    },
    writeAtomically(fn) {
      generation++;
      try {
        return root.transactionSync(fn);
      } finally {
        generation++;
      }
    },
    async writeAtomicallySoon(fn) {
      soon.flushes.throwFailed();
      generation++;
      const token = Buffer.concat([soon.run, Buffer.from(String(++soon.count))]);
      const meta = tables.get("meta")!;
      let ran!: (value: ReturnType<typeof fn>) => void;
      const callbackRan = new Promise<ReturnType<typeof fn>>((resolve) => {
        ran = resolve;
      });
      let answered = false;
      try {
        // A child transaction of lmdb's batch: a throw in `fn` commits none of its puts.
        const committed = root.childTransaction(() => {
          const result = fn();
          meta.put(soonKey, token);
          ran(result);
          return result;
        });
        soon.flushes.watch(committed, () => answered);
        const result = await untilVisible({
          committed,
          ran: callbackRan,
          visible: () => {
            root.resetReadTxn();
            const v = meta.getFast(soonKey);
            return v !== undefined && Buffer.from(v.buffer, v.byteOffset, v.length).equals(token);
          },
        });
        answered = true;
        return result;
      } finally {
        generation++;
      }
    },
    refresh() {
      generation++;
      root.resetReadTxn();
    },
    generation: () => generation,
    async backup(dir) {
      mkdirSync(dir, { recursive: true });
      // LMDB writes data.mdb into an existing, empty directory (the environment has a subdir).
      await root.backup(dir, true);
    },
    sizeOnDisk() {
      const stats = root.getStats() as { lastPageNumber: number; pageSize: number };
      return (stats.lastPageNumber + 1) * stats.pageSize;
    },
    isOpen: () => envOpen,
    async close() {
      envOpen = false;
      // The flushes under way finish first; one that failed after its write was answered, and
      // that no later write threw, is thrown once the environment is closed.
      const flushed = soon.flushes.settle();
      await flushed.catch(() => undefined);
      await root.close();
      await flushed;
    },
  };
}
