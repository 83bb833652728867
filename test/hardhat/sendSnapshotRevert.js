// A Hardhat 3 script (`hardhat run --network flashnode`): sends from an unlocked account,
// snapshots, sends again and mines, reverts, and prints what it saw as one JSON line.
import { network } from "hardhat";

const { provider } = await network.connect();
const request = (method, params = []) => provider.request({ method, params });
const balance = async (a) => BigInt(await request("eth_getBalance", [a, "pending"]));
const receipt = async (hash) => {
  for (let i = 0; i < 200; i++) {
    const r = await request("eth_getTransactionReceipt", [hash]);
    if (r !== null) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no receipt for ${hash}`);
};

const [from, to] = await request("eth_accounts");
const first = await request("eth_sendTransaction", [{ from, to, value: "0x3e8" }]);
const firstReceipt = await receipt(first);
await request("evm_mine");
const afterFirst = await balance(to);
const snapshot = await request("evm_snapshot");
const second = await request("eth_sendTransaction", [{ from, to, value: "0x7d0" }]);
await receipt(second);
await request("hardhat_mine", ["0x2"]);
const afterSecond = await balance(to);
const headBeforeRevert = await request("eth_blockNumber");
const reverted = await request("evm_revert", [snapshot]);
console.log(
  JSON.stringify({
    from,
    to,
    first,
    firstStatus: firstReceipt.status,
    afterFirst: afterFirst.toString(),
    snapshot,
    second,
    afterSecond: afterSecond.toString(),
    headBeforeRevert,
    reverted,
    afterRevert: (await balance(to)).toString(),
    headAfterRevert: await request("eth_blockNumber"),
    secondAfterRevert: await request("eth_getTransactionReceipt", [second]),
    firstAfterRevert: (await request("eth_getTransactionByHash", [first]))?.hash ?? null,
  }),
);
