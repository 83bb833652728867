// The writer of the random EVM programs (evmPrograms.ts): a seeded generator, the values, offsets,
// slots and addresses a program uses, and its tokens for the assembler (evmAsm.ts).

/** xorshift32: small, fast and the same everywhere. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  next(): number {
    let x = this.state;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.state = x;
    return x;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return this.next() % n;
  }

  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  word(): bigint {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(this.next());
    return v;
  }
}

/** What a program may name: the generated contracts, funded accounts, precompiles. */
export type ProgramContext = {
  readonly contracts: readonly bigint[];
  readonly accounts: readonly bigint[];
};

const MAX = (1n << 256n) - 1n;
const EDGES = [0n, 1n, 2n, 3n, 31n, 32n, 255n, 256n, (1n << 64n) - 1n, 1n << 128n, 1n << 255n, MAX];
const PRECOMPILES = [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 0x0bn, 0x11n, 0x100n];
const hex = (v: bigint) => `0x${v.toString(16)}`;

export class Writer {
  readonly tokens: string[] = [];
  private labels = 0;

  constructor(
    readonly rng: Rng,
    readonly ctx: ProgramContext,
  ) {}

  label(): string {
    return `l${this.labels++}`;
  }

  push(...values: bigint[]): void {
    for (const v of values) this.tokens.push(hex(v));
  }

  op(...names: string[]): void {
    this.tokens.push(...names);
  }

  value(): bigint {
    const r = this.rng;
    if (r.chance(0.4)) return r.pick(EDGES);
    if (r.chance(0.5)) return BigInt(r.int(300));
    return r.word();
  }

  /** A memory offset: mostly small, now and then far (memory expansion, out of gas). */
  offset(): bigint {
    const r = this.rng;
    if (r.chance(0.85)) return BigInt(r.int(256));
    if (r.chance(0.8)) return BigInt(r.int(20_000));
    return r.pick([1n << 32n, 1n << 64n, MAX]);
  }

  length(): bigint {
    const r = this.rng;
    if (r.chance(0.3)) return 0n;
    if (r.chance(0.9)) return BigInt(r.int(100));
    return BigInt(r.int(5_000));
  }

  slot(): bigint {
    return this.rng.chance(0.85) ? BigInt(this.rng.int(6)) : this.rng.word();
  }

  address(): bigint {
    const r = this.rng;
    const kind = r.int(10);
    if (kind < 5) return r.pick(this.ctx.contracts);
    if (kind < 7) return r.pick(this.ctx.accounts);
    if (kind < 9) return r.pick(PRECOMPILES);
    return r.word() & ((1n << 160n) - 1n);
  }

  /** Consumes the value on top of the stack (pop, keep in memory or, now and then, in storage). */
  sink(): void {
    const r = this.rng.int(8);
    if (r < 3) this.op("POP");
    else if (r < 7) {
      this.push(BigInt(this.rng.int(8) * 32));
      this.op("MSTORE");
    } else {
      this.push(this.slot());
      this.op("SSTORE");
    }
  }
}
