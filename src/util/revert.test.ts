import assert from "node:assert/strict";
import { test } from "node:test";
import { hexToBytes } from "./hex.ts";
import { revertMessage } from "./revert.ts";

const panic = (code: number) => hexToBytes(`0x4e487b71${code.toString(16).padStart(64, "0")}`);

test("revert data as geth words it: Error(string), Panic(uint256), anything else", () => {
  const error = hexToBytes(
    `0x08c379a0${"20".padStart(64, "0")}${"5".padStart(64, "0")}${Buffer.from("nope!").toString("hex").padEnd(64, "0")}`,
  );
  assert.equal(revertMessage(error), "execution reverted: nope!");
  assert.equal(revertMessage(panic(1)), "execution reverted: assert(false)");
  assert.equal(revertMessage(panic(0x11)), "execution reverted: arithmetic underflow or overflow");
  assert.equal(revertMessage(panic(0x99)), "execution reverted: unknown panic code: 0x99");
  assert.equal(revertMessage(hexToBytes("0xdeadbeef")), "execution reverted");
  assert.equal(revertMessage(new Uint8Array(0)), "execution reverted");
});
