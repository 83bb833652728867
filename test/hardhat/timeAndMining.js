// A Hardhat 3 script as one is written for anvil (`hardhat run --network flashnode`), against
// `flashnode dev --automine`: sends that are in `latest` when they answer, and Hardhat's network
// helpers (time.increaseTo, time.increase, mine, setBalance, snapshots, the next base fee).
// Prints what it saw as one JSON line.
import { network } from "hardhat";

const { provider, networkHelpers: helpers } = await network.connect();
const request = (method, params = []) => provider.request({ method, params });
const latestBalance = async (a) => BigInt(await request("eth_getBalance", [a, "latest"]));

const [from, to] = await request("eth_accounts");
const before = await latestBalance(to);
// Two sends in a row, no waiting: automine has sealed each when it answers.
await request("eth_sendTransaction", [{ from, to, value: "0x3e8" }]);
await request("eth_sendTransaction", [{ from, to, value: "0x3e8" }]);
const afterSends = await latestBalance(to);

const start = await helpers.time.latest();
const target = start + 3600;
await helpers.time.increaseTo(target);
const afterIncreaseTo = await helpers.time.latest();
await helpers.time.increase(60);
const afterIncrease = await helpers.time.latest();
const height = await helpers.time.latestBlock();
await helpers.mine(3);
const afterMine = await helpers.time.latestBlock();

const snapshot = await helpers.takeSnapshot();
await helpers.setBalance(to, 12345n);
const setBalanceSeen = await latestBalance(to);
await snapshot.restore();
const restored = await latestBalance(to);

await helpers.setNextBlockBaseFeePerGas(7n);
await helpers.mine();
const baseFee = (await request("eth_getBlockByNumber", ["latest", false])).baseFeePerGas;

console.log(
  JSON.stringify({
    sent: (afterSends - before).toString(),
    target,
    afterIncreaseTo,
    afterIncrease,
    height,
    afterMine,
    setBalanceSeen: setBalanceSeen.toString(),
    restored: restored.toString(),
    afterSends: afterSends.toString(),
    baseFee,
  }),
);
