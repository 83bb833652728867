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
  node = await startTestDevNode();
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
  // cast takes the nonce from `latest`: let the deployment seal before the next send.
  await pollUntil(
    () => cast("storage", ...rpc, "--block", "latest", contract, "0"),
    (v) => v === word(42n),
  );

  let sawPendingFirst = false;
  for (let attempt = 1n; attempt <= 3n && !sawPendingFirst; attempt++) {
    const value = 3000n + attempt;
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
    await pollUntil(
      () => cast("storage", ...rpc, "--block", "pending", contract, "0"),
      (v) => v === word(value),
      30_000,
      10,
    );
    if ((await cast("storage", ...rpc, "--block", "latest", contract, "0")) === word(value))
      continue;
    sawPendingFirst = true;
    const receipts = JSON.parse(
      await cast("rpc", ...rpc, "eth_getBlockReceipts", "pending"),
    ) as Array<{ transactionHash: string }>;
    assert.ok(receipts.some((r) => r.transactionHash === hash));
    await pollUntil(
      () => cast("storage", ...rpc, "--block", "latest", contract, "0"),
      (v) => v === word(value),
    );
    const receipt = JSON.parse(await cast("receipt", ...rpc, "--json", hash)) as {
      blockNumber: string;
    };
    const previous = (BigInt(receipt.blockNumber) - 1n).toString();
    assert.equal(
      await cast("storage", ...rpc, "--block", previous, contract, "0"),
      attempt === 1n ? word(42n) : word(value - 1n),
    );
  }
  assert.ok(sawPendingFirst, "the write was seen in pending before latest");
});
