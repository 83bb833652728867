// geth's prestateTracer (eth/tracers/native/prestate.go): every account and slot the
// transaction touches, as it was before; with diffMode, what changed before and after.
import type { StateManagerInterface } from "@ethereumjs/common";
import {
  Address,
  createContractAddress,
  createContractAddress2,
  KECCAK256_NULL,
} from "@ethereumjs/util";
import { bigIntToBytes, bytesToHex, equalBytes, padLeft } from "../../util/hex.ts";
import { data, qty } from "../../util/json.ts";
import { OP } from "./opcodes.ts";
import type { Step, Tracer, TxEnd, TxStart } from "./types.ts";

export type PrestateConfig = {
  readonly diffMode: boolean;
  readonly disableCode: boolean;
  readonly disableStorage: boolean;
  readonly includeEmpty: boolean;
};

export type PrestateRules = {
  /** EIP-6780: a self-destruct deletes only what the transaction created. */
  readonly cancun: boolean;
  /** EIP-7702: calls follow delegations. */
  readonly prague: boolean;
};

type AccountState = {
  balance: bigint | undefined;
  code: Uint8Array | undefined;
  codeHash: Uint8Array | undefined;
  nonce: bigint;
  storage: Map<string, string> | undefined;
  empty: boolean;
};

/** What one opcode looked up, kept until it is known to have run. */
type Staged = {
  readonly step: Step;
  readonly accounts: Array<[string, AccountState]>;
  readonly slots: Array<[string, string, string]>;
  readonly created: string[];
  readonly deleted: string[];
};

const ZERO_HASH = new Uint8Array(32);
const ZERO_WORD = bytesToHex(ZERO_HASH);
const DELEGATION = [0xef, 0x01, 0x00];

function word(value: bigint): Uint8Array {
  return padLeft(bigIntToBytes(value), 32);
}

function stackAddress(value: bigint): Address {
  return new Address(word(value).subarray(12));
}

/** EIP-7702: the address an account's code delegates to. */
function delegation(code: Uint8Array): Address | undefined {
  if (code.length !== 23 || DELEGATION.some((b, i) => code[i] !== b)) return undefined;
  return new Address(code.subarray(3));
}

export class PrestateTracer implements Tracer {
  private readonly pre = new Map<string, AccountState>();
  private readonly post = new Map<string, AccountState>();
  private readonly created = new Set<string>();
  private readonly deleted = new Set<string>();
  private staged: Staged | undefined;

  constructor(
    private readonly config: PrestateConfig,
    private readonly rules: PrestateRules,
  ) {}

  private async account(state: StateManagerInterface, address: Address): Promise<AccountState> {
    const account = await state.getAccount(address);
    const code = account === undefined ? new Uint8Array(0) : await state.getCode(address);
    const balance = account?.balance ?? 0n;
    const nonce = account?.nonce ?? 0n;
    const hash = account?.codeHash;
    return {
      balance,
      nonce,
      code: code.length > 0 && !this.config.disableCode ? code : undefined,
      codeHash:
        hash === undefined || equalBytes(hash, KECCAK256_NULL) || equalBytes(hash, ZERO_HASH)
          ? undefined
          : hash,
      storage: this.config.disableStorage ? undefined : new Map(),
      empty: nonce === 0n && code.length === 0 && balance === 0n,
    };
  }

  private async lookup(state: StateManagerInterface, address: Address, into: Staged) {
    const key = address.toString();
    if (this.pre.has(key) || into.accounts.some(([k]) => k === key)) return;
    into.accounts.push([key, await this.account(state, address)]);
  }

  private merge(s: Staged): void {
    for (const [key, account] of s.accounts) if (!this.pre.has(key)) this.pre.set(key, account);
    for (const [key, slot, value] of s.slots) {
      const storage = this.pre.get(key)?.storage;
      if (storage !== undefined && !storage.has(slot)) storage.set(slot, value);
    }
    for (const a of s.created) this.created.add(a);
    for (const a of s.deleted) this.deleted.add(a);
  }

  private flush(): void {
    if (this.staged !== undefined) this.merge(this.staged);
    this.staged = undefined;
  }

  async txStart(tx: TxStart): Promise<void> {
    const s: Staged = {
      step: undefined as never,
      accounts: [],
      slots: [],
      created: [],
      deleted: [],
    };
    let to = tx.to;
    if (to === undefined) {
      const nonce = (await tx.state.getAccount(tx.from))?.nonce ?? 0n;
      to = createContractAddress(tx.from, nonce);
      s.created.push(to.toString());
    } else if (this.rules.prague) {
      const target = delegation(await tx.state.getCode(to));
      if (target !== undefined) await this.lookup(tx.state, target, s);
    }
    await this.lookup(tx.state, tx.from, s);
    await this.lookup(tx.state, to, s);
    await this.lookup(tx.state, tx.coinbase, s);
    for (const authority of tx.authorities) await this.lookup(tx.state, authority, s);
    this.merge(s);
  }

  opcode(step: Step): Promise<void> | undefined {
    this.flush();
    const op = step.op;
    const stack = step.stack;
    const n = stack.length;
    const s: Staged = { step, accounts: [], slots: [], created: [], deleted: [] };
    const caller = step.address;
    const state = step.state;
    if (n >= 1 && (op === OP.SLOAD || op === OP.SSTORE)) {
      if (this.config.disableStorage) return undefined;
      const slot = word(stack[n - 1]!);
      this.staged = s;
      return state.getStorage(caller, slot).then((value) => {
        s.slots.push([caller.toString(), bytesToHex(slot), bytesToHex(padLeft(value, 32))]);
      });
    }
    const readsAccount =
      op === OP.EXTCODECOPY ||
      op === OP.EXTCODEHASH ||
      op === OP.EXTCODESIZE ||
      op === OP.BALANCE ||
      op === OP.SELFDESTRUCT;
    const calls =
      op === OP.DELEGATECALL || op === OP.CALL || op === OP.STATICCALL || op === OP.CALLCODE;
    if (n >= 1 && readsAccount) {
      this.staged = s;
      if (op === OP.SELFDESTRUCT) {
        const self = caller.toString();
        if (!this.rules.cancun || this.created.has(self)) s.deleted.push(self);
      }
      return this.lookup(state, stackAddress(stack[n - 1]!), s);
    }
    if (n >= 5 && calls) {
      this.staged = s;
      return this.callTarget(state, stackAddress(stack[n - 2]!), s);
    }
    if (op === OP.CREATE) {
      this.staged = s;
      return this.creation(state, caller, undefined, s);
    }
    if (n >= 4 && op === OP.CREATE2) {
      const offset = stack[n - 2]!;
      const size = stack[n - 3]!;
      if (offset + size > BigInt(step.memory.length) + (1n << 25n)) return undefined;
      const init = new Uint8Array(Number(size));
      init.set(step.memory.subarray(Number(offset), Number(offset + size)));
      this.staged = s;
      const address = createContractAddress2(caller, word(stack[n - 4]!), init);
      return this.creation(state, caller, address, s);
    }
    return undefined;
  }

  private async callTarget(state: StateManagerInterface, address: Address, s: Staged) {
    await this.lookup(state, address, s);
    if (!this.rules.prague) return;
    const target = delegation(await state.getCode(address));
    if (target !== undefined) await this.lookup(state, target, s);
  }

  private async creation(
    state: StateManagerInterface,
    caller: Address,
    known: Address | undefined,
    s: Staged,
  ) {
    const address =
      known ?? createContractAddress(caller, (await state.getAccount(caller))?.nonce ?? 0n);
    await this.lookup(state, address, s);
    s.created.push(address.toString());
  }

  opcodeFault(step: Step, error: string | undefined): void {
    // geth skips the lookups of an opcode that failed before running.
    if (error !== undefined && this.staged?.step === step) this.staged = undefined;
  }

  enter(): void {
    this.flush();
  }

  exit(): void {
    this.flush();
  }

  async txEnd(tx: TxEnd): Promise<void> {
    this.flush();
    if (this.config.diffMode) await this.diff(tx.state);
    if (this.config.includeEmpty) return;
    for (const [key, account] of this.pre) if (account.empty) this.pre.delete(key);
  }

  /** geth's processDiffState: keep what changed, before and after. */
  private async diff(state: StateManagerInterface): Promise<void> {
    for (const [key, before] of this.pre) {
      // A deleted account keeps its state in `pre` and has none in `post`.
      if (this.deleted.has(key)) continue;
      const address = new Address(Buffer.from(key.slice(2), "hex"));
      const account = await state.getAccount(address);
      const after: AccountState = {
        balance: undefined,
        code: undefined,
        codeHash: undefined,
        nonce: 0n,
        storage: new Map(),
        empty: false,
      };
      let modified = false;
      const balance = account?.balance ?? 0n;
      if (balance !== before.balance) {
        modified = true;
        after.balance = balance;
      }
      const nonce = account?.nonce ?? 0n;
      if (nonce !== before.nonce) {
        modified = true;
        after.nonce = nonce;
      }
      // geth reads a missing account's code hash as zero.
      const codeHash = account?.codeHash ?? ZERO_HASH;
      if (!equalBytes(codeHash, before.codeHash ?? KECCAK256_NULL)) {
        modified = true;
        after.codeHash = codeHash;
      }
      if (!this.config.disableCode) {
        const code = account === undefined ? new Uint8Array(0) : await state.getCode(address);
        if (!equalBytes(code, before.code ?? new Uint8Array(0))) {
          modified = true;
          after.code = code;
        }
      }
      if (!this.config.disableStorage && before.storage !== undefined) {
        for (const [slot, value] of before.storage) {
          if (value === ZERO_WORD) before.storage.delete(slot);
          const now = bytesToHex(padLeft(await state.getStorage(address, hexBytes(slot)), 32));
          if (value === now) before.storage.delete(slot);
          else {
            modified = true;
            if (now !== ZERO_WORD) after.storage!.set(slot, now);
          }
        }
      }
      if (modified) this.post.set(key, after);
      else this.pre.delete(key);
    }
  }

  result(): string {
    if (!this.config.diffMode) return stateJson(this.pre);
    return `{"post":${stateJson(this.post)},"pre":${stateJson(this.pre)}}`;
  }
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
}

function stateJson(accounts: Map<string, AccountState>): string {
  const keys = [...accounts.keys()].sort();
  return `{${keys.map((k) => `"${k}":${accountJson(accounts.get(k)!)}`).join(",")}}`;
}

function accountJson(a: AccountState): string {
  const parts: string[] = [];
  if (a.balance !== undefined) parts.push(`"balance":${qty(a.balance)}`);
  if (a.code !== undefined) parts.push(`"code":${data(a.code)}`);
  if (a.codeHash !== undefined) parts.push(`"codeHash":${data(a.codeHash)}`);
  if (a.nonce !== 0n) parts.push(`"nonce":${a.nonce}`);
  if (a.storage !== undefined && a.storage.size > 0) {
    const slots = [...a.storage.keys()].sort();
    parts.push(`"storage":{${slots.map((s) => `"${s}":"${a.storage!.get(s)}"`).join(",")}}`);
  }
  return `{${parts.join(",")}}`;
}
