// Who writes an archive's blocks: a dev sequencer builds its own, a replica copies its
// sequencer's from NATS. A replica refuses a sequencer's datadir (its blocks would go into the
// sequencer's own archive) before it writes anything. An archive written before this record
// existed has none, and is taken for what it is asked to be.

import type { KvEnv } from "./lmdb.ts";
import { META_KEYS } from "./tables.ts";

export const PRODUCERS = ["sequencer", "replica"] as const;
export type ArchiveProducer = (typeof PRODUCERS)[number];

const KEY = new TextEncoder().encode(META_KEYS.producer);

export function archiveProducer(env: KvEnv): ArchiveProducer | undefined {
  const v = env.table("meta").get(KEY);
  if (v === undefined) return undefined;
  const name = new TextDecoder().decode(v);
  return (PRODUCERS as readonly string[]).includes(name) ? (name as ArchiveProducer) : undefined;
}

/** Records the archive's producer (a write of its own; a no-op when it is recorded already). */
export function setArchiveProducer(env: KvEnv, producer: ArchiveProducer): void {
  if (archiveProducer(env) === producer) return;
  env.writeAtomically(() => env.table("meta").put(KEY, new TextEncoder().encode(producer)));
}
