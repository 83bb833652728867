import { pin } from "./compare/peers.ts";
import { buildSeed } from "./compare/seed.ts";
import { luaScript, runWrk } from "./compare/wrk.ts";
import { startDevChild, transferSigner } from "./lib/devChain.ts";

const KEY = "benchkey0001";
const which = process.argv[2] ?? "batch";
const { accounts, common } = await transferSigner(10);
const seed = buildSeed(common, accounts, { smallBlocks: 20, bigBlocks: 2, tailBlocks: 10 });
const { child, url } = await startDevChild([
  "--block-time",
  "3600s",
  "--rate-limit",
  "0",
  "--api-key",
  KEY,
  "--rpc-workers",
  "1",
  "--log-level",
  "warn",
]);
const rpcUrl = `${url}rpc/${KEY}`;
async function rpc(method: string, params: unknown[] = []) {
  const r = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await r.json()) as { result: unknown }).result;
}
for (const block of seed.blocks) {
  for (const raw of block) await rpc("eth_sendRawTransaction", [raw]);
  await rpc("evm_mine");
}
pin(child.pid!, "1");
const bodies: Record<string, string> = {
  batch: `(function() local t = {} for i = 1, 100 do t[i] = string.format('{"jsonrpc":"2.0","id":%d,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","latest"]}', i, math.random(1, ${seed.slots})) end return "[" .. table.concat(t, ",") .. "]" end)()`,
  latest: `string.format('{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","latest"]}', math.random(1, ${seed.slots}))`,
  historical: `string.format('{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["${seed.contract}","0x%x","0x%x"]}', math.random(1, ${seed.slots}), math.random(1, 30))`,
};
const secs = Number(process.argv[3] ?? 8);
await runWrk(url, luaScript(`/rpc/${KEY}`, bodies[which]!), 3, 32, { threads: 1, cpus: "0" });
const r = await runWrk(url, luaScript(`/rpc/${KEY}`, bodies[which]!), secs, 32, {
  threads: 1,
  cpus: "0",
});
console.log(which, JSON.stringify(r));
const exited = new Promise((ok) => child.once("exit", ok));
child.kill("SIGTERM");
await exited;
