// What the call worker keeps from one call to the next, so a warm call does not read and analyse
// again what the previous calls read:
// - code by its hash (content-addressed, so never stale), as one array per code: the interpreter
//   keeps a contract's jump analysis by the code array (vmInterpreter.ts), and a fresh array from
//   each archive read made every call analyse every contract it ran again (~40 ms a Uniswap quote);
// - a sealed block's accounts and slots, by the block's number and hash: a sealed block's state
//   never changes, and a block replaced (evm_revert, a reorg) has another hash. The few most
//   recently used blocks are kept.
// A forked chain's read may answer a placeholder while a run discovers what to fetch
// (services/stateMisses.ts): nothing read by a run that has missed is kept (`cacheable`).
import type { AccountRecord } from "../chain/types.ts";
import type { StateView } from "../pending/pendingState.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";

/** Code kept by hash, in bytes (the largest contract is 24 KB; initcode runs are not kept). */
const CODE_BYTES = 64 * 1024 * 1024;
/** Sealed blocks whose reads are kept (the head, and a few a client also asks at). */
const KEPT_BLOCKS = 4;
/** A block's reads past this many start again (a bound on memory, not an expected size). */
const READS_PER_BLOCK = 500_000;

export class CodeByHash {
  private readonly codes = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes = CODE_BYTES) {}

  /** The code of `codeHash`, read with `read` unless kept; the same array each time. */
  get(
    codeHash: Uint8Array,
    read: () => Uint8Array | undefined,
    cacheable: () => boolean,
  ): Uint8Array | undefined {
    const key = bytesToUnprefixedHex(codeHash);
    const kept = this.codes.get(key);
    if (kept !== undefined) {
      this.codes.delete(key);
      this.codes.set(key, kept);
      return kept;
    }
    const code = read();
    if (code === undefined || !cacheable()) return code;
    // Its own buffer: a view into a larger one would keep that alive (and the interpreter does
    // not keep analyses of views).
    const own = code.slice();
    this.codes.set(key, own);
    this.bytes += own.length;
    for (const [k, v] of this.codes) {
      if (this.bytes <= this.maxBytes) break;
      this.codes.delete(k);
      this.bytes -= v.length;
    }
    return own;
  }
}

type BlockReads = {
  readonly accounts: Map<string, AccountRecord | undefined>;
  readonly slots: Map<string, Uint8Array>;
};

export class CallStateCache {
  readonly codes = new CodeByHash();
  private readonly blocks = new Map<string, BlockReads>();

  /** `cacheable`: whether what was just read may be kept (false for a fork's placeholder). */
  constructor(private readonly cacheable: () => boolean = () => true) {}

  /** `source` (a view of `code` by hash only) with its code kept by hash. */
  withCode(source: StateView): StateView {
    return {
      account: (a) => source.account(a),
      storage: (a, s) => source.storage(a, s),
      code: (h) => this.codes.get(h, () => source.code(h), this.cacheable),
    };
  }

  /** `source`, the state after sealed block `number` of hash `hash`, with its reads kept. */
  sealed(number: number, hash: Uint8Array, source: StateView): StateView {
    const key = `${number}:${bytesToUnprefixedHex(hash)}`;
    let reads = this.blocks.get(key);
    if (reads === undefined) {
      reads = { accounts: new Map(), slots: new Map() };
      if (this.blocks.size >= KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    } else this.blocks.delete(key);
    this.blocks.set(key, reads);
    const { accounts, slots } = reads;
    const keep = () => {
      if (!this.cacheable()) return false;
      if (accounts.size + slots.size >= READS_PER_BLOCK) {
        accounts.clear();
        slots.clear();
      }
      return true;
    };
    return {
      account: (address) => {
        const k = bytesToUnprefixedHex(address);
        if (accounts.has(k)) return accounts.get(k);
        const record = source.account(address);
        if (keep()) accounts.set(k, record);
        return record;
      },
      storage: (address, slot) => {
        const k = bytesToUnprefixedHex(address) + bytesToUnprefixedHex(slot);
        const kept = slots.get(k);
        if (kept !== undefined) return kept;
        const value = source.storage(address, slot);
        if (keep()) slots.set(k, value);
        return value;
      },
      code: (h) => this.codes.get(h, () => source.code(h), this.cacheable),
    };
  }
}
