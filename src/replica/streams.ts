// The JetStream layout of a sequencer and its replicas (docs/replicas.md): two streams and one
// request subject, all under a prefix so that several chains can share one NATS cluster.
//   <PREFIX>_BLOCKS        subjects <prefix>.blocks.<number>   one message per sealed block
//   <PREFIX>_FLASHBLOCKS   subject  <prefix>.flashblocks       every flashblock and seal
//   <prefix>.tx            request/reply: a replica's eth_sendRawTransaction and evm_mine
//   <PREFIX>_SNAPSHOTS     object store: the newest snapshot of the archive (object "archive")
import { hostname } from "node:os";

export type StreamOptions = {
  /** Subject prefix; stream names are its upper-case form. */
  readonly prefix: string;
  /** How long the block stream keeps a block (ms; 0: for ever). */
  readonly blockRetentionMs: number;
  /** How long the flashblock stream keeps a flashblock (ms). */
  readonly flashblockRetentionMs: number;
  /** JetStream replication factor of both streams and the snapshot bucket (1, or 3 on a 3-node cluster). */
  readonly replicas: number;
  /** Store a snapshot of the archive every this many blocks (0: never). */
  readonly snapshotEveryBlocks: number;
};

export const DEFAULT_STREAMS: StreamOptions = {
  prefix: "flashnode",
  blockRetentionMs: 0,
  flashblockRetentionMs: 10 * 60_000,
  replicas: 1,
  snapshotEveryBlocks: 0,
};

export type StreamNames = {
  readonly blocks: string;
  readonly flashblocks: string;
  /** Object store bucket of archive snapshots. */
  readonly snapshots: string;
  blockSubject(number: number): string;
  readonly blockSubjects: string;
  readonly flashblockSubject: string;
  readonly txSubject: string;
};

export function streamNames(prefix: string): StreamNames {
  const upper = prefix.toUpperCase().replace(/[^A-Z0-9_-]/g, "_");
  return {
    blocks: `${upper}_BLOCKS`,
    flashblocks: `${upper}_FLASHBLOCKS`,
    snapshots: `${upper}_SNAPSHOTS`,
    blockSubject: (n) => `${prefix}.blocks.${n}`,
    blockSubjects: `${prefix}.blocks.>`,
    flashblockSubject: `${prefix}.flashblocks`,
    txSubject: `${prefix}.tx`,
  };
}

/** A publisher id naming the machine and the process, unique per start. */
export function newPublisherId(): string {
  return `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
}

/** Headers of every stream message. */
export const HEADER = {
  format: "Flashnode-Format",
  block: "Flashnode-Block",
  /** Block messages: the chain's genesis hash (hex), so a replica of another chain refuses it. */
  genesis: "Flashnode-Genesis",
  /** Who wrote it: its publisher's id (several followers may write one stream, one at a time). */
  publisher: "Flashnode-Publisher",
} as const;
