// Issue-27 item 5: `flashnode follow` against the load of a `flashnode dev` sequencer on the same
// machine (2-s blocks, 200-ms flashblocks), the follower's --rpc through a counting proxy:
//  1. a flashblock of ~50 transactions (ERC-20 transfers and constant-product swaps, warm state)
//     at the follower's `pending`: the follower re-publishes each flashblock on its /flashblocks
//     when its reader applies it, so the bench taps both streams and takes, per (block, index),
//     the follower's arrival minus the sequencer's (one clock); beside it the follower's own
//     flashnode_flashblock_visible_seconds (its arrival → applied);
//     at ~250 tx/s (phase 1a), and as bursts of 50 once a second (1b), so that each such
//     flashblock meets a follower that has finished the one before;
//  2. keeping up: the follower's import work (flashnode_follow_events_total: importedGas /
//     importMilliseconds) and both heads every 100 ms, at ~250 tx/s and in a heavier phase
//     (more senders, swaps of several rounds, as much gas as the sequencer builds);
//  3. upstream requests and calls per block, by method, at the proxy.
// By default (not with --no-pin) the follower runs on CPU 1 (`taskset -c 1`, all its threads) and
// the sequencer, the bench and its proxy on CPU 0: of this bench's processes, only the follower
// uses CPU 1 (what else runs on the machine is not pinned, and is reported as run-queue waits).
// Run: npm run bench:follow [-- --seconds 30 --rate 250 --heavy-mgas 40 --no-pin --cpu-prof DIR]
// With --upstream-latency 40ms the bench is another one (bench/lib/followWan.ts): a follower whose
// upstream and stream are that far away, from a cold start and in steady state, under a load at
// --rate; --before REF runs REF's follower too, alternating with this tree's (--rounds N each).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { keccak256 } from "viem";
import { pin } from "./compare/peers.ts";
import { beforeCheckout } from "./lib/beforeWorktree.ts";
import { startCountingProxy } from "./lib/countingProxy.ts";
import { BIN, startDevChild } from "./lib/devChain.ts";
import { stopNode } from "./lib/execNodes.ts";
import { tapFlashblocks } from "./lib/flashblockTap.ts";
import { compileLoadContracts, type GasLimits, LoadSigner } from "./lib/followLoad.ts";
import { blockNumber, type FollowNodes, rpc, runPhase } from "./lib/followPhase.ts";
import { printPhase } from "./lib/followReport.ts";
import { runWanSide, type WanSetup, type WanSide } from "./lib/followWan.ts";
import { printWanSide, printWanSummary } from "./lib/followWanReport.ts";
import { postJson, waitForOutput } from "./lib/http.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    lead: { type: "string", default: "4" },
    rate: { type: "string", default: "250" },
    senders: { type: "string", default: "10" },
    "heavy-senders": { type: "string", default: "40" },
    "heavy-rounds": { type: "string", default: "20" },
    "heavy-mgas": { type: "string", default: "40" },
    "no-pin": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    phases: { type: "string", default: "1a,1b,2" },
    "upstream-latency": { type: "string" },
    before: { type: "string" },
    rounds: { type: "string", default: "1" },
    "cold-seconds": { type: "string", default: "15" },
  },
});
/** "40ms", "0.04s" or "40" (ms). */
function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (m === null) throw new Error(`--upstream-latency: not a duration: ${text}`);
  return Number(m[1]) * (m[2] === "s" ? 1000 : 1);
}
const LATENCY_MS =
  values["upstream-latency"] === undefined ? undefined : durationMs(values["upstream-latency"]);
const SECONDS = Number(values.seconds);
const LEAD = Number(values.lead);
const RATE = Number(values.rate);
const SENDERS = Number(values.senders);
const HEAVY_SENDERS = Math.max(SENDERS, Number(values["heavy-senders"]));
const HEAVY_ROUNDS = Number(values["heavy-rounds"]);
const HEAVY_MGAS = Number(values["heavy-mgas"]);
const PIN = !values["no-pin"];
/** Which phases run (a profile of one phase: --phases 1b --cpu-prof DIR). */
const PHASES = new Set(values.phases.split(","));
const KEY = "bench-follow-0001";
/** Flashblocks of at least this many transactions are the "flashblock of 50" of the goal. */
const MIN_TXS = 40;
/** Phase 1b's burst: the goal's flashblock of 50. */
const BURST = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

console.log(`machine: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
const contracts = compileLoadContracts();
const children: ChildProcess[] = [];
// Bounded whatever happens: past this the run is abandoned and every child killed.
const watchdog = setTimeout(
  () => {
    console.error("bench:follow: time limit reached; stopping");
    for (const c of children) c.kill("SIGKILL");
    process.exit(1);
  },
  (SECONDS + LEAD) * 2 * 1000 + 300_000,
);
watchdog.unref();

/** Sends signed transactions in batches and waits for every receipt; their gas used, in order. */
async function confirm(url: string, raws: readonly string[]): Promise<number[]> {
  for (let i = 0; i < raws.length; i += 20) {
    const batch = raws.slice(i, i + 20).map((raw, id) => ({
      jsonrpc: "2.0",
      id,
      method: "eth_sendRawTransaction",
      params: [raw],
    }));
    const answers = JSON.parse(await postJson(url, JSON.stringify(batch))) as {
      error?: { message: string };
    }[];
    const refused = answers.find((a) => a.error !== undefined);
    if (refused !== undefined) throw new Error(`refused: ${refused.error!.message}`);
  }
  const gas: number[] = [];
  for (const raw of raws) {
    const hash = keccak256(raw as `0x${string}`);
    for (let tries = 0; ; tries++) {
      const r = await rpc<{ status: string; gasUsed: string } | null>(
        url,
        "eth_getTransactionReceipt",
        [hash],
      );
      if (r !== null) {
        if (r.status !== "0x1") throw new Error(`transaction ${hash} reverted`);
        gas.push(Number(r.gasUsed));
        break;
      }
      if (tries > 600) throw new Error(`no receipt for ${hash}`);
      await sleep(50);
    }
  }
  return gas;
}

const devArgs = ["--block-time", "2s", "--flashblock-interval", "200ms", "--rate-limit", "0"];
const common = ["--api-key", KEY, "--log-level", "warn", "--rpc-workers", "1"];
/**
 * --upstream-latency: each side a cold follower (this tree's, or --before's) under a load at RATE
 * of transfers and swaps from every sender, its upstream and stream latencyMs away.
 */
async function wanBench(
  devUrl: string,
  wsBase: string,
  signer: LoadSigner,
  latencyMs: number,
): Promise<void> {
  // Gas limits from one round on the sequencer alone (the followers start after it: all cold).
  const probe: string[] = [];
  for (let i = 0; i < HEAVY_SENDERS; i++)
    probe.push(...(await signer.eachKind(i, 200_000n, 400_000n)));
  const gas = await confirm(devUrl, probe);
  const most = (k: number) => Math.max(...gas.filter((_, i) => i % 4 === k));
  const transferLimit = BigInt(Math.ceil(Math.max(most(0), most(1)) * 1.25));
  const swapLimit = BigInt(Math.ceil(Math.max(most(2), most(3)) * 1.25));
  const sides = [
    ...(values.before === undefined
      ? []
      : [
          {
            label: `before (${values.before})`,
            bin: beforeCheckout(values.before, console.log).bin,
          },
        ]),
    { label: "this tree", bin: BIN },
  ];
  const sequencerTap = await tapFlashblocks(`${wsBase}flashblocks`);
  const coldSeconds = Number(values["cold-seconds"]);
  const setup: WanSetup = {
    latencyMs,
    devUrl,
    wsBase,
    sequencerTap,
    followerArgs: common,
    key: KEY,
    pin: PIN,
    coldSeconds,
    seconds: SECONDS,
    rate: RATE,
  };
  console.log(
    `load: ~${RATE} tx/s of ERC-20 transfers (gas limit ${transferLimit}) and swaps (${swapLimit}) from ${HEAVY_SENDERS} senders; ${PIN ? "follower on CPU 1, sequencer and bench on CPU 0" : "nothing pinned"}`,
  );
  const results: WanSide[] = [];
  try {
    for (let round = 0; round < Number(values.rounds); round++)
      for (const side of sides) {
        // Every side's load continues from the nonces the sequencer holds.
        let left = 1;
        for (let t = 0; t < 450 && left > 0; t++) {
          left = Number((await rpc<{ pending: string }>(devUrl, "txpool_status")).pending);
          if (left > 0) await sleep(200);
        }
        for (let i = 0; i < HEAVY_SENDERS; i++)
          signer.nonces[i] = Number(
            await rpc<string>(devUrl, "eth_getTransactionCount", [
              signer.accounts[i]!.address,
              "pending",
            ]),
          );
        const load: string[] = [];
        const count = Math.ceil(RATE * (coldSeconds + SECONDS + 8));
        for (let i = 0; i < count; i++) {
          const from = i % HEAVY_SENDERS;
          const kind = Math.floor(i / HEAVY_SENDERS) % 4;
          load.push(
            kind < 2
              ? await signer.transfer(from, kind, transferLimit)
              : await signer.swap(from, kind, swapLimit),
          );
        }
        const label = `${side.label}, round ${round + 1}`;
        const result = await runWanSide(setup, label, side.bin, load);
        printWanSide(result, latencyMs, 8);
        results.push(result);
      }
  } finally {
    sequencerTap.close();
  }
  printWanSummary(results);
  console.log(`machine after: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
}

const seq = await startDevChild([...devArgs, ...common, "--accounts", String(HEAVY_SENDERS)]);
children.push(seq.child);
let follower: ChildProcess | undefined;
const closers: (() => unknown)[] = [];
try {
  const devUrl = `${seq.url}rpc/${KEY}`;
  const chainId = Number(await rpc<string>(devUrl, "eth_chainId"));
  const signer = new LoadSigner(HEAVY_SENDERS, contracts, chainId);
  // ---- the contracts, liquidity, every sender's tokens and approvals ---------------------------
  const setup = await signer.setup(10n ** 27n, 10n ** 24n);
  await confirm(devUrl, setup.slice(0, 3));
  await confirm(devUrl, setup.slice(3));
  console.log(
    `setup: tokens ${signer.tokenA}, ${signer.tokenB}, pair ${signer.pair}; ${setup.length} transactions, ${HEAVY_SENDERS} senders`,
  );

  if (LATENCY_MS !== undefined) {
    await wanBench(devUrl, seq.url.replace(/^http/, "ws"), signer, LATENCY_MS);
  } else {
    // ---- the follower, its --rpc through the counting proxy ---------------------------------------
    const proxy = await startCountingProxy(devUrl);
    closers.push(() => proxy.close());
    const wsBase = seq.url.replace(/^http/, "ws");
    const nodeArgs = [
      ...(values["cpu-prof"] === undefined
        ? []
        : ["--cpu-prof", "--cpu-prof-dir", values["cpu-prof"]]),
      BIN,
      "follow",
      "--rpc",
      proxy.url,
      "--flashblocks",
      `${wsBase}flashblocks`,
      "--datadir",
      mkdtempSync(join(tmpdir(), "flashnode-bench-follow-")),
      "--port",
      "0",
      "--rate-limit",
      "0",
      ...common,
    ];
    follower = PIN
      ? spawn("taskset", ["-c", "1", process.execPath, ...nodeArgs], {
          stdio: ["ignore", "pipe", "pipe"],
        })
      : spawn(process.execPath, nodeArgs, { stdio: ["ignore", "pipe", "pipe"] });
    children.push(follower);
    const followerBase = await waitForOutput(follower, /JSON-RPC \(public\):\s+(\S+)/);
    // Whatever it says at warn and above goes to the bench's stderr.
    follower.stderr?.on("data", (c: Buffer) => process.stderr.write(`[follower] ${c}`));
    if (PIN) {
      pin(seq.child.pid!, "0");
      // The bench's tree holds the follower too: it goes back to CPU 1 after (pinning the tree
      // alone once put every process of the bench on CPU 0).
      pin(process.pid, "0");
      pin(follower.pid!, "1");
    }
    const followerUrl = `${followerBase}rpc/${KEY}`;
    const nodes: FollowNodes = {
      devUrl,
      followerUrl,
      followerMetrics: `${followerBase}metrics`,
      followerPid: follower.pid!,
      devPid: seq.child.pid!,
      proxy,
      sequencerTap: await tapFlashblocks(`${wsBase}flashblocks`),
      followerTap: await tapFlashblocks(`${followerBase.replace(/^http/, "ws")}flashblocks`),
    };
    closers.push(nodes.sequencerTap.close, nodes.followerTap.close);
    console.log(
      `follower ${followerBase} (--rpc ${proxy.url} → ${devUrl}); ${PIN ? "follower on CPU 1 (taskset -c 1), sequencer and bench on CPU 0" : "nothing pinned"}`,
    );

    // ---- warm state: one round of each kind from every sender, on the follower too ---------------
    const warm: string[] = [];
    for (let i = 0; i < HEAVY_SENDERS; i++)
      warm.push(
        ...(await signer.eachKind(i, 200_000n, 400_000n)),
        await signer.swapRounds(i, HEAVY_ROUNDS, 3_000_000n),
      );
    const warmGas = await confirm(devUrl, warm);
    const most = (k: number) => Math.max(...warmGas.filter((_, i) => i % 5 === k));
    const gasOf = { transfer: most(0), swap: Math.max(most(2), most(3)), swapRounds: most(4) };
    // Measured gas plus a margin: the limit decides how many fit in a block, so not much more.
    const limit = (g: number) => BigInt(Math.ceil(g * 1.25));
    const limits: GasLimits = {
      transfer: limit(gasOf.transfer),
      swap: limit(gasOf.swap),
      swapRounds: limit(gasOf.swapRounds),
    };
    console.log(
      `warm-up: ${warm.length} transactions; gas used at most: transfer ${gasOf.transfer}, swap ${gasOf.swap}, swapRounds(${HEAVY_ROUNDS}) ${gasOf.swapRounds}`,
    );
    /** Until the sequencer's pool is empty and the follower has its head (bounded). */
    const settle = async () => {
      let left = 0;
      let queued = 0;
      for (let t = 0; t < 450; t++) {
        const pool = await rpc<{ pending: string; queued: string }>(devUrl, "txpool_status");
        left = Number(pool.pending);
        queued = Number(pool.queued);
        if (left === 0) break;
        await sleep(200);
      }
      await sleep(2_000);
      let behind = 0;
      for (let t = 0; t < 150; t++) {
        const [s, fo] = await Promise.all([blockNumber(devUrl), blockNumber(followerUrl)]);
        behind = s - fo;
        if (behind <= 0) break;
        await sleep(200);
      }
      // A phase signs more than it sends (it stops at the window's end): the next phase's nonces
      // continue from what the sequencer holds, or its transactions would wait behind a gap.
      for (let i = 0; i < HEAVY_SENDERS; i++)
        signer.nonces[i] = Number(
          await rpc<string>(devUrl, "eth_getTransactionCount", [
            signer.accounts[i]!.address,
            "pending",
          ]),
        );
      console.log(
        `\nsettled: ${left} transactions left in the sequencer's pool (${queued} queued), follower ${behind} blocks behind`,
      );
    };
    await settle();

    /** Transfers and swaps, half each, round-robin over the first SENDERS accounts. */
    const signLight = async (count: number) => {
      const out: string[] = [];
      for (let i = 0; i < count; i++) {
        const from = i % SENDERS;
        const round = Math.floor(i / SENDERS);
        out.push(
          round % 2 === 0
            ? await signer.transfer(from, round >> 1, limits.transfer)
            : await signer.swap(from, round >> 1, limits.swap),
        );
      }
      return out;
    };
    const span = SECONDS + LEAD + 2;

    // ---- 1a: ~RATE tx/s, 1-3 ------------------------------------------------------------------
    if (PHASES.has("1a")) {
      const p1 = await runPhase(nodes, await signLight(Math.ceil(RATE * span)), {
        pace: { kind: "rate", rate: RATE },
        leadSeconds: LEAD,
        seconds: SECONDS,
      });
      printPhase(
        `phase 1a: ~${RATE} tx/s, ERC-20 transfers and swaps from ${SENDERS} senders`,
        p1,
        MIN_TXS,
      );
      await settle();
    }

    // ---- 1b: one burst of BURST a second, so each flashblock of them meets an idle follower -------
    if (PHASES.has("1b")) {
      const p1b = await runPhase(nodes, await signLight(BURST * span), {
        pace: { kind: "bursts", size: BURST, everyMs: 1000 },
        leadSeconds: LEAD,
        seconds: SECONDS,
      });
      printPhase(
        `phase 1b: ${BURST} transfers and swaps at once, once a second, right after a sequencer flashblock`,
        p1b,
        MIN_TXS,
      );
      await settle();
    }

    // ---- 2 again, heavier: every sender, swaps of HEAVY_ROUNDS rounds, HEAVY_MGAS offered --------
    if (PHASES.has("2")) {
      const heavyRate = Math.ceil((HEAVY_MGAS * 1e6) / gasOf.swapRounds);
      const heavy: string[] = [];
      for (let i = 0; i < Math.ceil(heavyRate * span); i++)
        heavy.push(await signer.swapRounds(i % HEAVY_SENDERS, HEAVY_ROUNDS, limits.swapRounds));
      const p2 = await runPhase(nodes, heavy, {
        pace: { kind: "rate", rate: heavyRate },
        leadSeconds: LEAD,
        seconds: SECONDS,
      });
      printPhase(
        `phase 2: ~${heavyRate} tx/s of swapRounds(${HEAVY_ROUNDS}) (~${gasOf.swapRounds} gas each, ${HEAVY_MGAS} Mgas/s offered) from ${HEAVY_SENDERS} senders`,
        p2,
        MIN_TXS,
      );
    }
  }
} finally {
  for (const close of closers) await close();
  await stopNode(follower);
  await stopNode(seq.child);
}
