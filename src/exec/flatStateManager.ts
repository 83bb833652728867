// State for eth_call/eth_estimateGas: reads come from the archive's flat tables (and the
// pending overlay) through a StateView; writes stay in memory and vanish with the
// call. No trie is touched.
import { SimpleStateManager } from "@ethereumjs/statemanager";
import { Account, type Address, KECCAK256_NULL } from "@ethereumjs/util";
import type { StateView } from "../pending/pendingState.ts";
import { UpstreamReadNeeded } from "../services/forkedState.ts";
import { bytesToHex } from "../util/hex.ts";
import { SenderCodeMask } from "./senderCodeMask.ts";

const CLEARED = "cleared";

/**
 * A source read that a forked chain's upstream must answer first (UpstreamReadNeeded): the EVM
 * waits for the fetch and reads again.
 */
async function settled<T>(read: () => T): Promise<T> {
  for (;;) {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof UpstreamReadNeeded)) throw e;
      await e.fetch();
    }
  }
}

export class FlatStateManager extends SimpleStateManager {
  /** A sender whose code the EVM library's EIP-3607 check must not see (hideSenderCode()). */
  private readonly mask = new SenderCodeMask();

  constructor(
    private source: StateView,
    opts: ConstructorParameters<typeof SimpleStateManager>[0],
  ) {
    super(opts);
  }

  /**
   * Starts again over `source` (a VM kept for the next call): nothing read or written before
   * shows, every checkpoint is gone.
   */
  reset(source: StateView): void {
    this.source = source;
    this.accountStack = [new Map()];
    this.codeStack = [new Map()];
    this.storageStack = [new Map()];
    this.originalStorageCache.clear();
    this.mask.set(undefined);
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    return this.mask.view(address, await this.storedAccount(address));
  }

  private async storedAccount(address: Address): Promise<Account | undefined> {
    const top = this.topAccountStack();
    const key = address.toString();
    if (top.has(key)) return top.get(key);
    const record = await settled(() => this.source.account(address.bytes));
    const account =
      record === undefined
        ? undefined
        : new Account(record.nonce, record.balance, undefined, record.codeHash ?? KECCAK256_NULL);
    top.set(key, account);
    return account;
  }

  /** geth's calls skip EIP-3607; anvil's impersonated contracts send (src/exec/senderCodeMask.ts). */
  hideSenderCode(address: Address | undefined): void {
    this.mask.set(address);
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (this.mask.covers(address))
      this.mask.beforeWrite(account, await this.storedAccount(address));
    return super.putAccount(address, account);
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const top = this.topCodeStack();
    const key = address.toString();
    const written = top.get(key);
    if (written !== undefined) return written;
    const account = await this.getAccount(address);
    if (account === undefined || !account.isContract()) return new Uint8Array(0);
    const codeHash = account.codeHash;
    return (await settled(() => this.source.code(codeHash))) ?? new Uint8Array(0);
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const top = this.topStorageStack();
    const id = `${address.toString()}_${bytesToHex(key)}`;
    const written = top.get(id);
    if (written !== undefined) return written;
    if (top.has(`${address.toString()}_${CLEARED}`)) return new Uint8Array(0);
    return settled(() => this.source.storage(address.bytes, key));
  }

  override async clearStorage(address: Address): Promise<void> {
    await super.clearStorage(address);
    this.topStorageStack().set(`${address.toString()}_${CLEARED}`, new Uint8Array(0));
  }

  /** Only a pre-Byzantium receipt asks (for its root); calls and traces never read it. */
  override async getStateRoot(): Promise<Uint8Array> {
    return new Uint8Array(32);
  }

  /** Whether the account's storage was cleared (so the source's slots no longer show). */
  isCleared(address: Address): boolean {
    return this.topStorageStack().has(`${address.toString()}_${CLEARED}`);
  }

  override shallowCopy(): FlatStateManager {
    const copy = new FlatStateManager(
      this.source,
      this.common === undefined ? {} : { common: this.common },
    );
    copy.accountStack = this.accountStack.map((m) => new Map(m));
    copy.codeStack = this.codeStack.map((m) => new Map(m));
    copy.storageStack = this.storageStack.map((m) => new Map(m));
    return copy;
  }
}
