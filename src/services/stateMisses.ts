// State a forked chain never wrote and has not fetched yet, read by a run that can be repeated
// (an RPC handler, an EVM call's first run): the read notes what it missed and answers a
// placeholder, the run's result is thrown away, what was missed is fetched (one batch), and it
// runs again, until a run misses nothing. Handlers stay synchronous and unaware of the upstream,
// and an EVM call that touches 200 uncached slots costs one upstream batch, not 200 round trips.
// Nothing computed from a placeholder leaves the node: a side effect asked for during a run that
// missed (a transaction sent with a nonce read from a placeholder) is refused by
// mustNotHaveMissed() and made on the next run.
import { AsyncLocalStorage } from "node:async_hooks";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { ServerError } from "./errors.ts";
import { fetchMiss, type StateMiss, UpstreamReadNeeded } from "./forkedState.ts";
import type { UpstreamState } from "./upstreamState.ts";

export class StateMisses {
  readonly accounts = new Map<string, Uint8Array>();
  readonly slots = new Map<string, readonly [Uint8Array, Uint8Array]>();

  account(address: Uint8Array): void {
    this.accounts.set(bytesToUnprefixedHex(address), address);
  }

  slot(address: Uint8Array, slot: Uint8Array): void {
    this.slots.set(bytesToUnprefixedHex(address) + bytesToUnprefixedHex(slot), [address, slot]);
  }

  get size(): number {
    return this.accounts.size + this.slots.size;
  }
}

/** A side effect asked for by a run that read placeholders. */
export class StateNotFetchedError extends ServerError {}

const current = new AsyncLocalStorage<StateMisses>();

/**
 * The onMiss of forkedState.ts for readers that repeat runs: noted in the running run's
 * collection; outside one, the read waits for the upstream instead (UpstreamReadNeeded).
 */
export function noteMiss(upstream: UpstreamState): (miss: StateMiss) => void {
  return (miss) => {
    const misses = current.getStore();
    if (misses === undefined) throw new UpstreamReadNeeded(fetchMiss(upstream, miss));
    if (miss.kind === "account") misses.account(miss.address);
    else {
      misses.account(miss.address);
      misses.slot(miss.address, miss.slot);
    }
  };
}

/**
 * Whether the running run has read a placeholder so far (a cache must not keep what it read
 * since: it may be one).
 */
export function runHasMissed(): boolean {
  return (current.getStore()?.size ?? 0) > 0;
}

/** Before a side effect: a run that read placeholders must not act on them. */
export function mustNotHaveMissed(): void {
  const misses = current.getStore();
  if (misses !== undefined && misses.size > 0)
    throw new StateNotFetchedError("state of the fork's upstream was not fetched yet");
}

/** How many runs one call may take (each fetches what the run before it missed). */
const MAX_RUNS = 8;

/**
 * Runs `run` until it misses nothing, fetching what each run missed. A synchronous run that
 * misses nothing answers synchronously.
 */
export function runFetchingMisses<T>(
  run: () => T,
  fetch: (misses: StateMisses) => Promise<void>,
): T | Promise<Awaited<T>> {
  const misses = new StateMisses();
  let out: T;
  try {
    out = current.run(misses, run);
  } catch (e) {
    if (misses.size === 0) throw e;
    return again(run, fetch, misses, 1);
  }
  if (out instanceof Promise)
    return out.then(
      (v: Awaited<T>) => (misses.size === 0 ? v : again(run, fetch, misses, 1)),
      (e: unknown) => {
        if (misses.size === 0) throw e;
        return again(run, fetch, misses, 1);
      },
    );
  if (misses.size === 0) return out;
  return again(run, fetch, misses, 1);
}

async function again<T>(
  run: () => T,
  fetch: (misses: StateMisses) => Promise<void>,
  missedBefore: StateMisses,
  runs: number,
): Promise<Awaited<T>> {
  let last = missedBefore;
  for (let n = runs; ; n++) {
    await fetch(last);
    const misses = new StateMisses();
    let value: Awaited<T> | undefined;
    let error: unknown;
    let failed = false;
    try {
      value = await current.run(misses, run);
    } catch (e) {
      failed = true;
      error = e;
    }
    if (misses.size === 0) {
      if (failed) throw error;
      return value as Awaited<T>;
    }
    if (n >= MAX_RUNS)
      throw new ServerError(
        `the call kept reading state of the fork's upstream not fetched yet after ${MAX_RUNS} rounds`,
      );
    last = misses;
  }
}

/**
 * Runs noting what it misses (placeholders answer) and fetches it all in one batch, again while
 * a run misses something (a few times at most); then runs waiting for any read still missing
 * (UpstreamReadNeeded): an EVM call's reads can depend on what it read, so the last run must be
 * exact.
 */
export async function discoverThenRun<T>(
  run: () => Promise<T>,
  fetch: (misses: StateMisses) => Promise<void>,
): Promise<T> {
  // A run that missed an account saw no code there: what that code reads shows on the next.
  for (let pass = 0; pass < DISCOVERY_PASSES; pass++) {
    const misses = new StateMisses();
    try {
      const out = await current.run(misses, run);
      if (misses.size === 0) return out;
    } catch (e) {
      if (misses.size === 0) throw e;
    }
    await fetch(misses);
  }
  return run();
}

/** Discovering runs before the exact one (each costs an EVM run; a round trip costs more). */
const DISCOVERY_PASSES = 4;

/** Fetches what a run missed, in one batch; an upstream failure is the caller's answer. */
export async function fetchMisses(upstream: UpstreamState, misses: StateMisses): Promise<void> {
  await Promise.all([
    ...[...misses.accounts.values()].map((a) => upstream.account(a)),
    ...[...misses.slots.values()].map(([a, s]) => upstream.storage(a, s)),
  ]);
}
