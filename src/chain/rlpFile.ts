// A chain file (geth's `export` format: RLP blocks back to back) read one block at a time. Only
// the item headers are parsed to find each block's bounds, so a multi-gigabyte export of a real
// chain never sits in memory: one block's bytes at a time.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { FlashnodeError } from "../util/errors.ts";

export class ChainFileError extends FlashnodeError {
  readonly code = "CHAIN_FILE_INVALID";
}

export type ChainFileItem = { readonly offset: number; readonly bytes: Uint8Array };

export class ChainFile {
  private readonly head = Buffer.alloc(9);

  private constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}

  static open(path: string): ChainFile {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (e) {
      throw new ChainFileError(`cannot read chain file ${path}: ${(e as Error).message}`);
    }
    return new ChainFile(fd, fstatSync(fd).size);
  }

  /** Total length (header + payload) of the RLP list starting at `offset`. */
  private itemLength(offset: number): number {
    const bad = (why: string) =>
      new ChainFileError(`chain file is not valid RLP at byte ${offset}: ${why}`);
    const got = readSync(this.fd, this.head, 0, Math.min(9, this.size - offset), offset);
    const first = this.head[0]!;
    if (got === 0 || first < 0xc0) throw bad("a block must be an RLP list");
    let total: number;
    if (first <= 0xf7) total = 1 + (first - 0xc0);
    else {
      const lenOfLen = first - 0xf7;
      if (got < 1 + lenOfLen) throw bad("truncated list header");
      if (this.head[1] === 0) throw bad("list length has a leading zero byte");
      let length = 0;
      for (let i = 1; i <= lenOfLen; i++) length = length * 256 + this.head[i]!;
      if (length < 56) throw bad("long list header for a short list");
      total = 1 + lenOfLen + length;
    }
    if (offset + total > this.size)
      throw bad(`a block of ${total} bytes runs past the end of the file (${this.size} bytes)`);
    return total;
  }

  /** Where each block lies, in file order (headers only). */
  private *bounds(): Generator<{ offset: number; length: number }> {
    for (let offset = 0; offset < this.size; ) {
      const length = this.itemLength(offset);
      yield { offset, length };
      offset += length;
    }
  }

  private read(offset: number, length: number): ChainFileItem {
    const bytes = Buffer.allocUnsafe(length);
    readSync(this.fd, bytes, 0, length, offset);
    return { offset, bytes };
  }

  /** The blocks' bytes, in file order. */
  *items(): Generator<ChainFileItem> {
    for (const { offset, length } of this.bounds()) yield this.read(offset, length);
  }

  /** How many blocks the file holds, and the last one (headers only: no block is decoded). */
  count(): { readonly count: number; readonly last: ChainFileItem | undefined } {
    let count = 0;
    let last: { offset: number; length: number } | undefined;
    for (const b of this.bounds()) {
      last = b;
      count++;
    }
    return { count, last: last === undefined ? undefined : this.read(last.offset, last.length) };
  }

  close(): void {
    closeSync(this.fd);
  }
}
