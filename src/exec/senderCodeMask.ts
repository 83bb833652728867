// Hides one sender's code from the EVM library's EIP-3607 check ("sender is not an EOA"): geth's
// calls skip that check, and anvil lets an impersonated contract send a transaction. The state
// managers of the sequencer and of calls and traces share this one rule.
import { Account, type Address, equalsBytes, KECCAK256_NULL } from "@ethereumjs/util";

export class SenderCodeMask {
  private hidden: string | undefined;

  /** Hides `address`'s code until the write that bumps its nonce; undefined ends it. */
  set(address: Address | undefined): void {
    this.hidden = address?.toString();
  }

  /** The account as getAccount shows it: without code while hidden. */
  view(address: Address, account: Account | undefined): Account | undefined {
    // Every state read passes here: no address string unless a sender is hidden.
    if (account === undefined || this.hidden === undefined || this.hidden !== address.toString())
      return account;
    return new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL);
  }

  /**
   * Before `account` is written over `real`: a copy read through view() would drop the code, so
   * the real code hash is put back. The mask ends at the transaction's own write (its nonce
   * bumped, before it runs); writes that keep the nonce come first on an OP-stack chain, where
   * the L1 data fee is charged ahead of the library's checks. Called when covers(address).
   */
  beforeWrite(account: Account | undefined, real: Account | undefined): void {
    if (account === undefined || real === undefined || account.nonce !== real.nonce)
      this.hidden = undefined;
    if (
      account !== undefined &&
      real !== undefined &&
      equalsBytes(account.codeHash, KECCAK256_NULL)
    )
      account.codeHash = real.codeHash;
  }

  /** Whether a write of `address` needs its stored account (beforeWrite's `real`). */
  covers(address: Address): boolean {
    return this.hidden !== undefined && this.hidden === address.toString();
  }
}
