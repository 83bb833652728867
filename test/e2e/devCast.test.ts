// Foundry's `cast` (npm binary), unmodified, against `flashnode dev`.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { CAST, cast, castDeploy } from "../utils/cast.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../utils/devChain.ts";

// keccak256("Set(uint256)")
const SET_TOPIC = "0xdf7a95aebff315db1b7716215d602ab537373cdb769232aae6055c06e798425b";

let node: DevNode;
before(async () => {
  // No block seals but the ones the test asks for (evm_mine): what is pending and not yet latest
  // stays so between two reads however loaded the machine is (a 2 s block time sealed between
  // them on one). Flashblocks still come every 200 ms.
  node = await startTestDevNode({ blockTimeMs: 3_600_000 });
});
after(async () => {
  await node.close();
});

test("cast: deploy, write, read through pending before the seal, then latest, then history", {
  skip: existsSync(CAST) ? false : "cast binary not installed",
}, async () => {
  const key = node.accounts[2]!.privateKey;
  const rpc = ["--rpc-url", node.dedicatedUrl];
  const deployed = await castDeploy(node.dedicatedUrl, key, storageContractBytecode(SET_TOPIC));
  assert.equal(deployed.status, "0x1");
  const contract = deployed.contractAddress;
  assert.equal(await cast("storage", ...rpc, "--block", "pending", contract, "0"), word(42n));
  // cast takes the nonce from `latest`: the deployment is sealed before the next send.
  await cast("rpc", ...rpc, "evm_mine");
  assert.equal(await cast("storage", ...rpc, "--block", "latest", contract, "0"), word(42n));

  const value = 3001n;
  const hash = await cast(
    "send",
    ...rpc,
    "--private-key",
    key,
    "--async",
    contract,
    setCalldata(value),
  );
  assert.match(hash, /^0x[0-9a-f]{64}$/);
  // Pre-confirmed: in pending at its next flashblock, not in latest.
  await pollUntil(
    () => cast("storage", ...rpc, "--block", "pending", contract, "0"),
    (v) => v === word(value),
    30_000,
    10,
  );
  assert.equal(await cast("storage", ...rpc, "--block", "latest", contract, "0"), word(42n));
  const receipts = JSON.parse(
    await cast("rpc", ...rpc, "eth_getBlockReceipts", "pending"),
  ) as Array<{ transactionHash: string }>;
  assert.ok(receipts.some((r) => r.transactionHash === hash));
  // Sealed: in latest, and the block before it still holds the old value.
  await cast("rpc", ...rpc, "evm_mine");
  assert.equal(await cast("storage", ...rpc, "--block", "latest", contract, "0"), word(value));
  const receipt = JSON.parse(await cast("receipt", ...rpc, "--json", hash)) as {
    blockNumber: string;
  };
  const previous = (BigInt(receipt.blockNumber) - 1n).toString();
  assert.equal(await cast("storage", ...rpc, "--block", previous, contract, "0"), word(42n));
});
