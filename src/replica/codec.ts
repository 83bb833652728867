// The messages of the replication streams, as bytes. A format name travels with every message
// (header `Flashnode-Format`): a replica refuses a format it does not read instead of guessing.
// The payload is V8's serialization of plain data (Uint8Array, bigint, arrays, objects): every
// message is built from the same domain types the node already passes between its threads and
// processes, so the stream adds no second schema to keep in step. Sequencer and replicas must
// run releases that share FORMAT (docs/replicas.md).
import { DefaultSerializer, deserialize } from "node:v8";
import type { BlockWrite } from "../chain/types.ts";
import type { ChainUpdate } from "../pending/types.ts";

export const FORMAT = "flashnode-v8/1";

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

export function encodeMessage(m: BlockMessage | ChainUpdate): Uint8Array {
  const s = new PlainBytesSerializer();
  s.writeHeader();
  s.writeValue(m);
  return s.releaseBuffer();
}

export function decodeBlockMessage(bytes: Uint8Array, format: string | undefined): BlockMessage {
  checkFormat(format);
  return deserialize(bytes) as BlockMessage;
}

export function decodeChainUpdate(bytes: Uint8Array, format: string | undefined): ChainUpdate {
  checkFormat(format);
  return deserialize(bytes) as ChainUpdate;
}

function checkFormat(format: string | undefined): void {
  if (format !== FORMAT)
    throw new FormatError(
      `stream message in format ${format ?? "(none)"}; this flashnode reads ${FORMAT}: run the sequencer and its replicas on releases that share it`,
    );
}
