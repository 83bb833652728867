// `node --import tsx bench/compare/abBatch.ts OLD_TREE [NEW_TREE]`: the batch of 100
// eth_getStorageAt `latest` calls of batchInProcess.ts, run by two checkouts of flashnode in one
// process, alternating in short slices so that a noisy machine slows both alike. Prints µs per
// call of each (the sum over all slices) and their ratio. For A/B comparisons of the RPC path.
import { resolve } from "node:path";

type Tree = { name: string; handle: (body: string) => unknown };

async function load(root: string): Promise<Tree> {
  const m = async (p: string) => import(resolve(root, p));
  const { chainSpecFromGenesis } = await m("src/chain/genesis.ts");
  const { createBackend } = await m("src/node/backendFactory.ts");
  const { createDispatcher } = await m("src/rpc/dispatch.ts");
  const { createMethods } = await m("src/rpc/methods.ts");
  const { createChainStore } = await m("src/store/chainStore.ts");
  const { openKvEnv } = await m("src/store/lmdb.ts");
  const { importFixtureChain } = await m("test/utils/fixtures.ts");
  const env = openKvEnv(importFixtureChain(`ab-${root.replace(/\W/g, "")}`), { readOnly: true });
  const store = createChainStore(env);
  const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()));
  const dispatcher = createDispatcher(createMethods(createBackend(spec, store)));
  return { name: root, handle: (body) => dispatcher.handle(body, { tier: "dedicated" }) };
}

const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
const bodies = Array.from({ length: 64 }, (_, b) => {
  const calls = Array.from(
    { length: 100 },
    (_, i) =>
      `{"jsonrpc":"2.0","id":${i + 1},"method":"eth_getStorageAt","params":["${CONTRACT}","0x${((b * 37 + i * 11) % 200).toString(16)}","latest"]}`,
  );
  // Flat, as a body read from a socket is (a template literal would be a cons string).
  return Buffer.from(`[${calls.join(",")}]`).toString();
});

const roots = process.argv.slice(2);
if (roots.length === 0) throw new Error("usage: abBatch.ts OLD_TREE [NEW_TREE]");
if (roots.length === 1) roots.push(process.cwd());
const trees = [await load(roots[0]!), await load(roots[1]!)];
const cpu = [0, 0];
const SLICE = 200;
for (let round = 0; round < 60; round++) {
  for (let t = 0; t < 2; t++) {
    const tree = trees[round % 2 === 0 ? t : 1 - t]!;
    const idx = trees.indexOf(tree);
    const c0 = process.cpuUsage();
    for (let b = 0; b < SLICE; b++) {
      const out = await tree.handle(bodies[b % bodies.length]!);
      if (typeof out !== "string" || !out.startsWith("[{")) throw new Error("no answer");
    }
    const c = process.cpuUsage(c0);
    // The first rounds warm both trees up.
    if (round >= 10) cpu[idx]! += c.user + c.system;
  }
}
const per = cpu.map((c) => c / (50 * SLICE * 100));
console.log(`${roots[0]}: ${per[0]!.toFixed(3)} µs per call`);
console.log(`${roots[1]}: ${per[1]!.toFixed(3)} µs per call`);
console.log(`new / old = ${(per[1]! / per[0]!).toFixed(3)}`);
