// The writes of the block being executed, over the state of the archive's head: accounts, storage
// slots and storage wipes by address, flat (no trie), with an undo log. A checkpoint is the log's
// length pushed on a stack; a revert undoes the entries above it, newest first; a commit pops the
// mark and keeps them. Nothing is copied whatever the depth of the calls.

/** An account as execution holds it: its storage root is the trie's, computed at the seal. */
export type AccountValue = {
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly codeHash: Uint8Array;
};

/** What the block wrote of one address. */
export class AddressWrites {
  /** undefined: not written; null: deleted. */
  account: AccountValue | null | undefined = undefined;
  /** Written slots by their unprefixed hex, values with leading zeros trimmed (empty: zero). */
  slots: Map<string, Uint8Array> | undefined = undefined;
  /** Its storage was dropped (deleted, or created over storage): unwritten slots read zero. */
  wiped = false;

  constructor(readonly address: Uint8Array) {}

  /** Whether anything of it is written now (a reverted write leaves an empty record). */
  get written(): boolean {
    return this.account !== undefined || this.wiped || (this.slots?.size ?? 0) > 0;
  }
}

const ACCOUNT = 0;
const SLOT = 1;
const WIPE = 2;

/** One write's undo: what the field held before it. */
type Undo =
  | {
      readonly kind: typeof ACCOUNT;
      readonly w: AddressWrites;
      readonly prev: AccountValue | null | undefined;
    }
  | {
      readonly kind: typeof SLOT;
      readonly w: AddressWrites;
      readonly slot: string;
      readonly prev: Uint8Array | undefined;
    }
  | {
      readonly kind: typeof WIPE;
      readonly w: AddressWrites;
      readonly wiped: boolean;
      readonly slots: Map<string, Uint8Array> | undefined;
    };

export class BlockOverlay {
  private readonly byAddress = new Map<string, AddressWrites>();
  private readonly undo: Undo[] = [];
  private readonly marks: number[] = [];
  private changes = 0;

  /** Grows with every write and every revert: equal versions, equal overlays. */
  get version(): number {
    return this.changes;
  }

  get depth(): number {
    return this.marks.length;
  }

  get(key: string): AddressWrites | undefined {
    return this.byAddress.get(key);
  }

  /** Every address written since the block began (some, reverted, write nothing now). */
  entries(): IterableIterator<[string, AddressWrites]> {
    return this.byAddress.entries();
  }

  private writes(key: string, address: Uint8Array): AddressWrites {
    let w = this.byAddress.get(key);
    if (w === undefined) {
      w = new AddressWrites(address);
      this.byAddress.set(key, w);
    }
    return w;
  }

  /** Logs an undo, unless no checkpoint is open (nothing can revert it then). */
  private log(u: Undo): void {
    this.changes++;
    if (this.marks.length > 0) this.undo.push(u);
  }

  putAccount(key: string, address: Uint8Array, value: AccountValue | null): void {
    const w = this.writes(key, address);
    this.log({ kind: ACCOUNT, w, prev: w.account });
    w.account = value;
  }

  putSlot(key: string, address: Uint8Array, slot: string, value: Uint8Array): void {
    const w = this.writes(key, address);
    w.slots ??= new Map();
    this.log({ kind: SLOT, w, slot, prev: w.slots.get(slot) });
    w.slots.set(slot, value);
  }

  /** Drops the address's storage: the slots written so far are kept aside for a revert. */
  wipe(key: string, address: Uint8Array): void {
    const w = this.writes(key, address);
    this.log({ kind: WIPE, w, wiped: w.wiped, slots: w.slots });
    w.wiped = true;
    w.slots = undefined;
  }

  checkpoint(): void {
    this.marks.push(this.undo.length);
  }

  commit(): void {
    this.marks.pop();
    // At depth 0 nothing can be reverted any more.
    if (this.marks.length === 0) this.undo.length = 0;
  }

  revert(): void {
    const mark = this.marks.pop() ?? 0;
    for (let i = this.undo.length - 1; i >= mark; i--) {
      const u = this.undo[i]!;
      if (u.kind === ACCOUNT) u.w.account = u.prev;
      else if (u.kind === WIPE) {
        u.w.wiped = u.wiped;
        u.w.slots = u.slots;
      } else if (u.prev === undefined) u.w.slots?.delete(u.slot);
      else u.w.slots?.set(u.slot, u.prev);
    }
    this.undo.length = mark;
    this.changes++;
  }

  /** Forgets every write and checkpoint: the block is sealed into the head, or dropped. */
  clear(): void {
    this.byAddress.clear();
    this.undo.length = 0;
    this.marks.length = 0;
    this.changes++;
  }
}
