// The paths a flashblock takes through a node, before and after the layers, for
// bench/pendingLayers.ts: the copying block (test/utils/copyingPending.ts, the code as it was)
// and the layered one (src/pending), applied in one thread, in one process (its RPC thread and
// call worker), and in a node of a primary and reader processes.
import { deserialize, serialize } from "node:v8";
import { encodeUpdates } from "../../src/node/readerProtocol.ts";
import {
  applyFlashblock,
  type PendingBlock,
  sharedSnapshot,
  shareSnapshot,
} from "../../src/pending/pendingBlock.ts";
import type { FlashblockUpdate, StateDiff } from "../../src/pending/types.ts";
import { withLaidOutDiffs } from "../../src/pending/updateLayers.ts";
import { applyFlashblockByCopy, type CopiedPendingBlock } from "../../test/utils/copyingPending.ts";

export type Impl = "copying" | "layered";
export const IMPLS: readonly Impl[] = ["copying", "layered"];

/** Fresh update objects: the layered block lays a diff out once per object (updateLayers.ts). */
export const fresh = (blocks: readonly FlashblockUpdate[][]) =>
  blocks.map((b) => b.map((u) => ({ ...u })));
export const diffOf = (u: FlashblockUpdate) => u.diff as StateDiff;

/** Every flashblock of `blocks` applied; what each step costs is `step`'s. */
export function applyAll(impl: Impl, blocks: readonly FlashblockUpdate[][]): unknown {
  let last: unknown;
  if (impl === "copying") {
    let p: CopiedPendingBlock | undefined;
    for (const b of blocks)
      for (const u of b) p = applyFlashblockByCopy(p, { ...u, diff: diffOf(u) });
    last = p;
  } else {
    let p: PendingBlock | undefined;
    for (const b of blocks) for (const u of b) p = applyFlashblock(p, u);
    last = p;
  }
  return last;
}

/** One process's cost per flashblock: the RPC thread's snapshot, the crossing, the worker's. */
export function processAll(impl: Impl, blocks: readonly FlashblockUpdate[][]): void {
  if (impl === "copying") {
    let rpc: CopiedPendingBlock | undefined;
    let worker: CopiedPendingBlock | undefined;
    for (const b of blocks)
      for (const u of b) {
        rpc = applyFlashblockByCopy(rpc, { ...u, diff: diffOf(u) });
        const crossed = structuredClone(u);
        worker = applyFlashblockByCopy(worker, { ...crossed, diff: diffOf(crossed) });
      }
    return;
  }
  let rpc: PendingBlock | undefined;
  for (const b of blocks)
    for (const u of b) {
      rpc = applyFlashblock(rpc, u);
      sharedSnapshot(structuredClone(shareSnapshot(rpc)));
    }
}

/** A node's cost per flashblock with `count` reader processes (each as `processAll`). */
export function nodeAll(impl: Impl, blocks: readonly FlashblockUpdate[][], count: number): void {
  const envelope = (body: unknown) => ({ fn: 1, t: "evt", kind: "updates", body });
  if (impl === "copying") {
    let primary: CopiedPendingBlock | undefined;
    const readers: Array<{ rpc?: CopiedPendingBlock; worker?: CopiedPendingBlock }> = Array.from(
      { length: count },
      () => ({}),
    );
    for (const b of blocks)
      for (const u of b) {
        primary = applyFlashblockByCopy(primary, { ...u, diff: diffOf(u) });
        for (const r of readers) {
          // Cluster IPC serializes the message once per reader.
          const got = deserialize(serialize(envelope({ updates: [u], sentAt: 0 }))).body
            .updates[0] as FlashblockUpdate;
          r.rpc = applyFlashblockByCopy(r.rpc, { ...got, diff: diffOf(got) });
          const crossed = structuredClone(got);
          r.worker = applyFlashblockByCopy(r.worker, { ...crossed, diff: diffOf(crossed) });
        }
      }
    return;
  }
  let primary: PendingBlock | undefined;
  const readers: Array<{ rpc?: PendingBlock }> = Array.from({ length: count }, () => ({}));
  for (const b of blocks)
    for (const u of b) {
      primary = applyFlashblock(primary, u);
      const message = encodeUpdates({ updates: [withLaidOutDiffs(u)], sentAt: 0 });
      for (const r of readers) {
        const bytes = deserialize(serialize(envelope(message))).body as Uint8Array;
        const got = deserialize(bytes).updates[0] as FlashblockUpdate;
        r.rpc = applyFlashblock(r.rpc, got);
        sharedSnapshot(structuredClone(shareSnapshot(r.rpc)));
      }
    }
}
