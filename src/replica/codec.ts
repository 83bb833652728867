// The messages of the replication streams, as bytes. A format name travels with every message
// (header `Flashnode-Format`): a replica refuses a format it does not read instead of guessing.
// A flashblock update carries what a replica cannot derive and nothing it can: no /flashblocks
// JSON (the replica renders it from the update, pending/flashblockWire.ts), only the two ids
// it needs (`wire`): UPDATE_FORMAT, flashnode-v8/2.
// The payload is V8's serialization of plain data (Uint8Array, bigint, arrays, objects): every
// message is built from the same domain types the node already passes between its threads and
// processes, so the stream adds no second schema to keep in step. Sequencer and replicas must
// run releases that share FORMAT (docs/replicas.md).
import { DefaultSerializer, deserialize } from "node:v8";
import type { BlockWrite } from "../chain/types.ts";
import type { ChainUpdate, FlashblockUpdate } from "../pending/types.ts";

/** Block messages and snapshots. */
export const FORMAT = "flashnode-v8/1";
/** Flashblock-stream updates, without the /flashblocks JSON (v8/1 carried it: still read). */
export const UPDATE_FORMAT = "flashnode-v8/2";
const UPDATE_FORMATS_READ = [UPDATE_FORMAT, FORMAT];

/**
 * A sealed block as the block stream carries it: what a replica needs to store it without
 * executing it. No trie nodes: reads never walk the trie, and `--verify` rebuilds its own.
 */
export type BlockMessage = Omit<BlockWrite, "code" | "trieNodes"> & {
  /** Code first stored by this block, by code hash (hex, no 0x). */
  readonly code: ReadonlyArray<readonly [string, Uint8Array]>;
  /** The genesis JSON, on the chain's first block only (0, or a fork's F): an archive starts
   * from it. */
  readonly chainConfig?: string;
  /** A forked chain's first block F: the record its archive starts with (store's forkBase). */
  readonly forkBase?: {
    readonly chainId: bigint;
    readonly number: number;
    readonly hash: Uint8Array;
    readonly stateRoot: Uint8Array;
  };
};

export class FormatError extends Error {
  readonly code = "REPLICA_FORMAT";
}

/**
 * V8's serialization with a Node Buffer written as the Uint8Array it is: the archive hands back
 * Buffers or Uint8Arrays for the same bytes depending on when a value is read, and the message
 * must not depend on that (followers publishing one stream send the same bytes for a block).
 */
type HostObjectWriter = { _writeHostObject(view: ArrayBufferView): void };
/** DefaultSerializer's own writer of typed arrays (node:v8 documents it; its types do not). */
const writeView = (DefaultSerializer.prototype as unknown as HostObjectWriter)._writeHostObject;

class PlainBytesSerializer extends DefaultSerializer {
  _writeHostObject(view: ArrayBufferView): void {
    const plain = Buffer.isBuffer(view)
      ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
      : view;
    writeView.call(this, plain);
  }
}

function serialized(m: unknown): Uint8Array {
  const s = new PlainBytesSerializer();
  s.writeHeader();
  s.writeValue(m);
  return s.releaseBuffer();
}

/** A block message, in FORMAT. */
export function encodeBlockMessage(m: BlockMessage): Uint8Array {
  return serialized(m);
}

/** A flashblock-stream update, in UPDATE_FORMAT: the rendered /flashblocks JSON left out. */
export function encodeChainUpdate(u: ChainUpdate): Uint8Array {
  return serialized(u.kind === "sealed" ? { ...u, next: withoutJson(u.next) } : withoutJson(u));
}

function withoutJson(u: FlashblockUpdate): FlashblockUpdate {
  if (u.wireJson === undefined) return u;
  const { wireJson: _rendered, ...rest } = u;
  return rest;
}

export function decodeBlockMessage(bytes: Uint8Array, format: string | undefined): BlockMessage {
  checkFormat(format, [FORMAT], "block");
  return deserialize(bytes) as BlockMessage;
}

export function decodeChainUpdate(bytes: Uint8Array, format: string | undefined): ChainUpdate {
  checkFormat(format, UPDATE_FORMATS_READ, "flashblock");
  return deserialize(bytes) as ChainUpdate;
}

function checkFormat(format: string | undefined, read: readonly string[], stream: string): void {
  if (format === undefined || !read.includes(format))
    throw new FormatError(
      `${stream} stream message in format ${format ?? "(none)"}; this flashnode reads ${read.join(" and ")}: run the publisher and its replicas on releases that share it`,
    );
}
