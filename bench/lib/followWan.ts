// `npm run bench:follow -- --upstream-latency 40ms`: a follower whose upstream is a WAN away.
// Its --rpc goes through a counting proxy that adds the latency to every request's round trip,
// and its --flashblocks through a relay that hands on every frame that much later, in order.
// One side of the bench is one follower on a new datadir (nothing of the upstream's state
// fetched yet), started while a load of transfers and swaps flows:
//  - cold start: from its spawn, when it answers (ready), shows its first flashblock, and is at
//    the head (a flashblock it shows is the newest the relay handed it);
//  - cold flashblocks: the first ones it shows, each with the upstream requests made while it
//    was the one being worked on and how many round trips they took;
//  - steady state: a window once it is at the head, flashblock → `pending` (the follower's
//    /flashblocks, whose frames leave when its reader applies the flashblock) against the frame's
//    arrival at the follower (the relay handing it on, loopback), and requests per flashblock.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pin } from "../compare/peers.ts";
import {
  type ProxiedRequest,
  roundTrips,
  STATE_METHODS,
  startCountingProxy,
} from "./countingProxy.ts";
import { type FlashblockTap, tapFlashblocks } from "./flashblockTap.ts";
import { drive } from "./followPhase.ts";
import { waitForOutput } from "./http.ts";
import { startWsRelay } from "./wsRelay.ts";

export type WanSetup = {
  readonly latencyMs: number;
  /** The sequencer's dedicated endpoint, and its ws:// base (…/ for /flashblocks). */
  readonly devUrl: string;
  readonly wsBase: string;
  readonly sequencerTap: FlashblockTap;
  readonly followerArgs: readonly string[];
  readonly key: string;
  readonly pin: boolean;
  readonly coldSeconds: number;
  readonly seconds: number;
  readonly rate: number;
};

/** One flashblock the relay handed the follower, and what it cost. */
export type FlashblockCost = {
  readonly key: string;
  readonly index: number;
  readonly transactions: number;
  /** Relay → the follower's /flashblocks, ms; undefined: never shown. */
  readonly lagMs: number | undefined;
  /** State reads (eth_getBalance, …StorageAt, …) while it was being worked on, and their round trips. */
  readonly stateRequests: number;
  readonly stateTrips: number;
  /** Every upstream request in that time (block fetches included), and their round trips. */
  readonly requests: number;
  readonly trips: number;
};

export type WanSide = {
  readonly label: string;
  readonly readyMs: number;
  readonly firstShownMs: number | undefined;
  readonly atHeadMs: number | undefined;
  readonly cold: readonly FlashblockCost[];
  readonly steady: readonly FlashblockCost[];
  readonly steadySeconds: number;
  /** Every upstream request in the steady window, by method (calls), and the blocks sealed. */
  readonly steadyCalls: ReadonlyMap<string, number>;
  readonly steadyRequests: number;
  readonly steadyBlocks: number;
  /** Transactions sent (refused), flashblocks the relay handed on and the follower showed. */
  readonly sent: number;
  readonly refused: number;
  readonly handedOn: number;
  /** The sequencer's flashblocks in the steady window, and their transactions. */
  readonly sequencerFlashblocks: number;
  readonly sequencerTransactions: number;
  readonly shown: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Costs of the flashblocks handed on in [from, to): each worked on from its arrival or the
 * previous one's showing, whichever is later (the follower applies them one at a time). */
function costs(
  delivered: ReadonlyMap<string, number>,
  tap: FlashblockTap,
  sequencer: FlashblockTap,
  requests: readonly ProxiedRequest[],
  from: number,
  to: number,
): FlashblockCost[] {
  const order = [...delivered].sort((a, b) => a[1] - b[1]);
  const out: FlashblockCost[] = [];
  let previousShown = Number.NEGATIVE_INFINITY;
  for (const [key, at] of order) {
    const shown = tap.arrivals.get(key)?.at;
    const begin = Math.max(at, previousShown);
    if (shown !== undefined) previousShown = Math.max(previousShown, shown);
    if (at < from || at >= to) continue;
    const inWork =
      shown === undefined ? [] : requests.filter((r) => r.start >= begin && r.start < shown);
    const state = inWork.filter((r) => r.methods.some((m) => STATE_METHODS.has(m)));
    out.push({
      key,
      index: Number(key.split("/")[1]),
      transactions: sequencer.arrivals.get(key)?.transactions ?? 0,
      lagMs: shown === undefined ? undefined : shown - at,
      stateRequests: state.length,
      stateTrips: roundTrips(state),
      requests: inWork.length,
      trips: roundTrips(inWork),
    });
  }
  return out;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * One follower (`bin`), cold, started while `load` flows to the sequencer at the set rate;
 * the load stops when the side ends (the caller settles the sequencer between sides).
 */
export async function runWanSide(
  s: WanSetup,
  label: string,
  bin: string,
  load: readonly string[],
): Promise<WanSide> {
  const proxy = await startCountingProxy(s.devUrl, { latencyMs: s.latencyMs });
  const relay = await startWsRelay(`${s.wsBase}flashblocks`, s.latencyMs);
  const driver = drive({ devUrl: s.devUrl, sequencerTap: s.sequencerTap }, load, {
    kind: "rate",
    rate: s.rate,
  });
  let child: ChildProcess | undefined;
  let tap: FlashblockTap | undefined;
  try {
    // The load first: the follower meets full flashblocks from its first one.
    await sleep(2_000);
    const argv = [
      bin,
      "follow",
      "--rpc",
      proxy.url,
      "--flashblocks",
      relay.url,
      "--datadir",
      mkdtempSync(join(tmpdir(), "flashnode-bench-follow-wan-")),
      "--port",
      "0",
      "--rate-limit",
      "0",
      ...s.followerArgs,
    ];
    const spawned = performance.now();
    child = s.pin
      ? spawn("taskset", ["-c", "1", process.execPath, ...argv], {
          stdio: ["ignore", "pipe", "pipe"],
        })
      : spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
    const base = await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/);
    const readyMs = performance.now() - spawned;
    child.stderr?.on("data", (c: Buffer) => process.stderr.write(`[${label}] ${c}`));
    if (s.pin) pin(child.pid!, "1");
    tap = await tapFlashblocks(`${base.replace(/^http/, "ws")}flashblocks`);
    let atHead: number | undefined;
    let firstShown: number | undefined;
    const newest = () => {
      let best: [string, number] | undefined;
      for (const e of relay.delivered) if (best === undefined || e[1] > best[1]) best = e;
      return best?.[0];
    };
    const reached = new Promise<void>((ok) => {
      const off = tap!.onArrival(() => {
        const now = performance.now();
        firstShown ??= now;
        // The flashblock just shown is the newest the follower was handed.
        const last = [...tap!.arrivals].at(-1)?.[0];
        if (atHead === undefined && last !== undefined && last === newest()) {
          atHead = now;
          off();
          ok();
        }
      });
    });
    await Promise.race([reached, sleep(s.coldSeconds * 1000)]);
    const coldEnd = spawned + s.coldSeconds * 1000;
    await sleep(Math.max(0, coldEnd - performance.now()) + 1_000);
    // Steady state: a window once at the head (or after the cold window, if it never was).
    const t0 = performance.now();
    const calls0 = new Map(proxy.counts().byMethod);
    const requests0 = proxy.counts().requests;
    const head = async () =>
      Number(
        (
          (await (
            await fetch(s.devUrl, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
            })
          ).json()) as { result: string }
        ).result,
      );
    const head0 = await head();
    await sleep(s.seconds * 1000);
    const t1 = performance.now();
    const head1 = await head();
    const steadyCalls = new Map<string, number>();
    for (const [m, n] of proxy.counts().byMethod) {
      const d = n - (calls0.get(m) ?? 0);
      if (d > 0) steadyCalls.set(m, d);
    }
    const steadyRequests = proxy.counts().requests - requests0;
    driver.stop();
    await sleep(1_500); // the last frames reach the follower's stream
    const requests = proxy.requests();
    const cold = costs(relay.delivered, tap, s.sequencerTap, requests, spawned, coldEnd);
    const steady = costs(relay.delivered, tap, s.sequencerTap, requests, t0, t1);
    return {
      label,
      readyMs,
      firstShownMs: firstShown === undefined ? undefined : firstShown - spawned,
      atHeadMs: atHead === undefined ? undefined : atHead - spawned,
      cold,
      steady,
      steadySeconds: (t1 - t0) / 1000,
      steadyCalls,
      steadyRequests,
      steadyBlocks: head1 - head0,
      sent: driver.state.sent,
      refused: driver.state.errors,
      handedOn: relay.delivered.size,
      sequencerFlashblocks: [...s.sequencerTap.arrivals.values()].filter(
        (a) => a.at >= t0 && a.at < t1,
      ).length,
      sequencerTransactions: [...s.sequencerTap.arrivals.values()]
        .filter((a) => a.at >= t0 && a.at < t1)
        .reduce((n, a) => n + a.transactions, 0),
      shown: tap.arrivals.size,
    };
  } finally {
    driver.stop();
    tap?.close();
    if (child !== undefined) await stop(child);
    await relay.close();
    await proxy.close();
  }
}
