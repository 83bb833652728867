// `node --import tsx bench/compare/batchInProcess.ts`: the cost of a batch of 100
// eth_getStorageAt `latest` calls with everything but HTTP (the dispatcher, the registry and the
// imported fixture chain's archive), in µs per call. For A/B comparisons of the RPC path on a
// machine too noisy for wrk: CPU time of one thread, no sockets.

import { chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { createBackend } from "../../src/node/backendFactory.ts";
import { createDispatcher } from "../../src/rpc/dispatch.ts";
import { createMethods } from "../../src/rpc/methods.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import { importFixtureChain } from "../../test/utils/fixtures.ts";

const env = openKvEnv(importFixtureChain("batch-bench"), { readOnly: true });
const store = createChainStore(env);
const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()!));
const dispatcher = createDispatcher(createMethods(createBackend(spec, store)));
const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
const bodies = Array.from({ length: 64 }, (_, b) => {
  const calls = Array.from(
    { length: 100 },
    (_, i) =>
      `{"jsonrpc":"2.0","id":${i + 1},"method":"eth_getStorageAt","params":["${CONTRACT}","0x${((b * 37 + i * 11) % 200).toString(16)}","latest"]}`,
  );
  return Buffer.from(`[${calls.join(",")}]`).toString();
});
const BATCHES = 4000;
for (let round = 0; round < 7; round++) {
  const cpu0 = process.cpuUsage();
  for (let b = 0; b < BATCHES; b++) {
    const out = await dispatcher.handle(bodies[b % bodies.length]!, { tier: "dedicated" });
    if (typeof out !== "string" || !out.startsWith("[{")) throw new Error("no answer");
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(`${((cpu.user + cpu.system) / (BATCHES * 100)).toFixed(3)} µs per call`);
}
await env.close();
