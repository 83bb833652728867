import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { keccak256, parseGwei, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../../../test/utils/devChain.ts";
import { call, rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as DevNode } from "../../node/plan.ts";

let node: DevNode;
let contract: string;
type Result = { accessList: Array<{ address: string; storageKeys: string[] }>; gasUsed: string };

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  const account = privateKeyToAccount(node.accounts[1]!.privateKey as `0x${string}`);
  const deploy = await account.signTransaction({
    chainId: Number(node.chainId),
    type: "eip1559",
    nonce: 0,
    gas: 200_000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    data: storageContractBytecode(keccak256(toHex("Set(uint256)"))),
  });
  contract = (
    (await call(node.dedicatedUrl, "eth_sendRawTransactionSync", [deploy])) as {
      contractAddress: string;
    }
  ).contractAddress;
});
after(async () => {
  await node?.close();
});

test("eth_createAccessList: the touched slot, its gas, stable when given back; a transfer's is empty", async () => {
  const from = node.accounts[2]!.address;
  const args = { from, to: contract, data: setCalldata(5n) };
  // The deployment is pre-confirmed: the default block (pending) sees the contract.
  const r = (await call(node.dedicatedUrl, "eth_createAccessList", [args])) as Result;
  assert.deepEqual(r.accessList, [{ address: contract, storageKeys: [word(0n)] }]);
  assert.ok(!("error" in r));
  const again = (await call(node.dedicatedUrl, "eth_createAccessList", [
    { ...args, accessList: r.accessList },
  ])) as Result;
  assert.deepEqual(again, r, "the list is a fixed point");
  // At latest the contract is not sealed yet: no code, nothing touched.
  const atLatest = (await call(node.dedicatedUrl, "eth_createAccessList", [
    args,
    "latest",
  ])) as Result;
  assert.deepEqual(atLatest.accessList, []);
  const transfer = (await call(node.dedicatedUrl, "eth_createAccessList", [
    { from, to: node.accounts[3]!.address, value: "0x1" },
  ])) as Result;
  assert.deepEqual(transfer, { accessList: [], gasUsed: "0x5208" });
  const bad = (await rpc(node.dedicatedUrl, {
    jsonrpc: "2.0",
    id: 1,
    method: "eth_createAccessList",
    params: [args, "0x99"],
  })) as { error: { code: number; message: string } };
  assert.deepEqual(bad.error, { code: -32000, message: "header not found" });
});
