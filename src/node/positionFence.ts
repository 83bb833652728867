// The newest stream position any RPC reader may have shown, shared by the processes of one node
// through a small file in the datadir (the page cache is the shared memory; no fsync, nothing
// durable). The primary writes it before it hands an update to any reader; a reader that is
// asked anything while behind it waits for that update first. So whichever reader answers, a
// client never sees the pending view (or the head) go backwards.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";

export function fencePath(datadir: string): string {
  return join(datadir, "rpc-position");
}

/** Two copies of the value: a read torn by a concurrent write shows them different, and retries. */
const SIZE = 16;

export class PositionFence {
  private readonly buf = Buffer.alloc(SIZE);

  private constructor(private readonly fd: number) {}

  /** The writer (the primary): starts the file over at position 0. */
  static create(datadir: string): PositionFence {
    const fence = new PositionFence(openSync(fencePath(datadir), "w+"));
    fence.write(0);
    return fence;
  }

  static open(datadir: string): PositionFence {
    return new PositionFence(openSync(fencePath(datadir), "r"));
  }

  write(position: number): void {
    this.buf.writeDoubleLE(position, 0);
    this.buf.writeDoubleLE(position, 8);
    writeSync(this.fd, this.buf, 0, SIZE, 0);
  }

  read(): number {
    for (let attempt = 0; attempt < 8; attempt++) {
      if (readSync(this.fd, this.buf, 0, SIZE, 0) !== SIZE) return 0;
      const a = this.buf.readDoubleLE(0);
      if (a === this.buf.readDoubleLE(8)) return a;
    }
    return 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}
