// The upstream's state as a forked chain's executor reads it (services/upstreamState.ts), for unit
// tests of what the follower asks of it: answered from a VM's state (the chain at F), each
// request after a latency, every request recorded with when it was in flight.
import { Address, KECCAK256_NULL } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import type { AccountRecord } from "../../src/chain/types.ts";
import type { UpstreamState } from "../../src/services/upstreamState.ts";
import { keccak256 } from "../../src/util/crypto.ts";
import { bytesToUnprefixedHex, equalBytes, padLeft, trimLeadingZeros } from "../../src/util/hex.ts";

const EMPTY = new Uint8Array(0);

/** One request to the fake upstream: what it asked for, and when it was in flight. */
export type Request = {
  /** Addresses and address‖slot keys, unprefixed hex. */
  accounts: Set<string>;
  slots: Set<string>;
  start: number;
  end: number;
};

/**
 * The upstream as the follower's ForkState is to it: fetched values cached (peeks answer them),
 * identical reads in flight shared, each prefetch() one request, each lone read one request,
 * every request answered `latencyMs` later.
 */
export class FakeUpstream implements UpstreamState {
  readonly requests: Request[] = [];
  private readonly accounts = new Map<string, AccountRecord | null>();
  private readonly slots = new Map<string, Uint8Array>();
  private readonly codes = new Map<string, Uint8Array>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly state: VM["stateManager"],
    private readonly latencyMs: number,
  ) {}

  /** Every account and slot fetched so far, as the upstream answered it (null: no account). */
  fetched(): {
    accounts: ReadonlyMap<string, AccountRecord | null>;
    slots: ReadonlyMap<string, Uint8Array>;
  } {
    return { accounts: this.accounts, slots: this.slots };
  }

  private async answer(accounts: Uint8Array[], slots: [Uint8Array, Uint8Array][]): Promise<void> {
    const request: Request = {
      accounts: new Set(accounts.map(bytesToUnprefixedHex)),
      slots: new Set(slots.map(([a, s]) => bytesToUnprefixedHex(a) + bytesToUnprefixedHex(s))),
      start: performance.now(),
      end: Number.POSITIVE_INFINITY,
    };
    this.requests.push(request);
    await new Promise((r) => setTimeout(r, this.latencyMs));
    for (const a of accounts) {
      const account = await this.state.getAccount(new Address(a));
      const code = await this.state.getCode(new Address(a));
      if (code.length > 0) this.codes.set(bytesToUnprefixedHex(keccak256(code)), code);
      this.accounts.set(
        bytesToUnprefixedHex(a),
        account === undefined
          ? null
          : {
              nonce: account.nonce,
              balance: account.balance,
              codeHash: equalBytes(account.codeHash, KECCAK256_NULL) ? undefined : account.codeHash,
            },
      );
    }
    for (const [a, s] of slots)
      this.slots.set(
        bytesToUnprefixedHex(a) + bytesToUnprefixedHex(s),
        trimLeadingZeros(await this.state.getStorage(new Address(a), s)),
      );
    request.end = performance.now();
  }

  /** Joins a read of `key` in flight, or starts one. */
  private once(key: string, fetch: () => Promise<void>): Promise<void> {
    let p = this.inFlight.get(key);
    if (p === undefined) {
      p = fetch().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, p);
    }
    return p;
  }

  async account(address: Uint8Array) {
    const key = bytesToUnprefixedHex(address);
    if (!this.accounts.has(key)) await this.once(key, () => this.answer([address], []));
    return this.accounts.get(key) ?? undefined;
  }

  async storage(address: Uint8Array, slot: Uint8Array) {
    const word = padLeft(slot, 32);
    const key = bytesToUnprefixedHex(address) + bytesToUnprefixedHex(word);
    if (!this.slots.has(key)) await this.once(key, () => this.answer([], [[address, word]]));
    return this.slots.get(key)!;
  }

  async code(address: Uint8Array) {
    const account = await this.account(address);
    return account?.codeHash === undefined ? EMPTY : this.codeByHash(account.codeHash)!;
  }

  codeByHash = (hash: Uint8Array) => this.codes.get(bytesToUnprefixedHex(hash));
  peekAccount = (address: Uint8Array) => this.accounts.get(bytesToUnprefixedHex(address));
  peekStorage = (address: Uint8Array, slot: Uint8Array) =>
    this.slots.get(bytesToUnprefixedHex(address) + bytesToUnprefixedHex(padLeft(slot, 32)));

  async prefetch(
    accounts: readonly Uint8Array[],
    slots: readonly (readonly [Uint8Array, Uint8Array])[],
  ): Promise<void> {
    const all = this.answer(
      [...accounts],
      slots.map(([a, s]) => [a, padLeft(s, 32)] as [Uint8Array, Uint8Array]),
    );
    for (const a of accounts) this.inFlight.set(bytesToUnprefixedHex(a), all);
    for (const [a, s] of slots)
      this.inFlight.set(bytesToUnprefixedHex(a) + bytesToUnprefixedHex(padLeft(s, 32)), all);
    await all;
    for (const a of accounts) this.inFlight.delete(bytesToUnprefixedHex(a));
    for (const [a, s] of slots)
      this.inFlight.delete(bytesToUnprefixedHex(a) + bytesToUnprefixedHex(padLeft(s, 32)));
  }

  /** Round trips of the requests since `from`: one begins when none is in flight. */
  roundTrips(from = 0): number {
    let trips = 0;
    let busyUntil = Number.NEGATIVE_INFINITY;
    for (const r of this.requests.slice(from).sort((a, b) => a.start - b.start)) {
      if (r.start >= busyUntil) trips++;
      busyUntil = Math.max(busyUntil, r.end);
    }
    return trips;
  }
}
