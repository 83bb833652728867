// Where a warm eth_call's time goes: `flashnode dev` (OP-stack genesis, one reader process) set up
// with the Uniswap pools of `npm run bench:exec`, then the same QuoterV2 quote at `latest` fired
// --calls times; with --cpu-prof DIR each of the node's threads writes a V8 CPU profile there
// (summarise one with bench/profileTop.ts). Prints the calls' p50/p99.
// Run: node --import tsx bench/callProfile.ts [--calls 200] [--cpu-prof DIR] [--bin PATH]

import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { BIN } from "./lib/devChain.ts";
import { API_KEY, GAS_LIMIT, stopNode, tempDir, writeOpGenesis } from "./lib/execNodes.ts";
import { callLatencies } from "./lib/execPaths.ts";
import { signPlan } from "./lib/execPlan.ts";
import { waitForOutput } from "./lib/http.ts";
import { mineBlock } from "./lib/txSigner.ts";
import { runSetup } from "./lib/uniswapSetup.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "200" },
    "cpu-prof": { type: "string" },
    bin: { type: "string", default: BIN },
    senders: { type: "string", default: "4" },
    readers: { type: "string", default: "1" },
  },
});
const senders = Number(values.senders);
const plan = await signPlan(senders);
const genesis = await writeOpGenesis(senders + 1);
const profDir = values["cpu-prof"];
// The profile starts with the node, so it holds the set-up too (a few hundred transactions);
// the reader process (node:cluster) and its threads inherit the flags.
const argv = [
  ...(profDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", profDir]),
  values.bin,
  "dev",
  ...["--datadir", tempDir("call-profile"), "--port", "0", "--api-key", API_KEY],
  ...["--log-level", "warn", "--rate-limit", "0", "--rpc-workers", values.readers],
  ...["--gas-limit", String(GAS_LIMIT), "--genesis", genesis, "--block-time", "3600s"],
];
const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
const base = await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/);
const node = { child, url: `${base}rpc/${API_KEY}` };
try {
  await runSetup(node.url, plan.setup);
  await mineBlock(node.url, plan.warm);
  const ms = await callLatencies(node.url, plan.workloads.quoteCall(), Number(values.calls), 20);
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  console.log(
    `eth_call ×${ms.length}: p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms, min ${sorted[0]!.toFixed(2)} ms`,
  );
} finally {
  await stopNode(node.child);
}
