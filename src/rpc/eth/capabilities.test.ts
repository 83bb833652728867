import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  callerFor,
  type FixtureChain,
  fixtureChain,
  result,
} from "../../../test/utils/fixtureChain.ts";
import { createBackend } from "../../node/backendFactory.ts";
import type { ProofService } from "../../services/proofs.ts";
import { bytesToHex } from "../../util/hex.ts";

const FROM_GENESIS = { disabled: false, oldestBlock: "0x0" };
let chain: FixtureChain;

/** The fixture archive, with trie nodes only for the state roots of blocks `from` and later. */
function withTrieFrom(from: number) {
  const backend = createBackend(chain.spec, chain.store);
  const kept = new Set<string>();
  for (let n = from; n <= 54; n++) {
    const hash = chain.store.canonicalHash(n)!;
    kept.add(bytesToHex(backend.decoder.header(chain.store.headerRlp(n, hash)!).stateRoot));
  }
  const proofs: ProofService = { ...backend.proofs!, holds: (root) => kept.has(bytesToHex(root)) };
  return callerFor({ ...backend, proofs });
}

describe("eth_capabilities", () => {
  before(async () => {
    chain = await fixtureChain("capabilities");
  });
  after(async () => {
    await chain.close();
  });

  test("an imported archive serves everything from genesis, proofs included", async () => {
    assert.deepEqual(await result(chain.call, "eth_capabilities"), {
      head: {
        number: "0x36",
        hash: "0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7",
      },
      state: FROM_GENESIS,
      tx: FROM_GENESIS,
      logs: FROM_GENESIS,
      receipts: FROM_GENESIS,
      blocks: FROM_GENESIS,
      stateproofs: FROM_GENESIS,
    });
    const at20 = (await result(chain.at({ head: 20 }), "eth_capabilities")) as {
      head: { number: string };
    };
    assert.equal(at20.head.number, "0x14");
  });

  test("proofs: from the oldest block whose trie nodes are kept; disabled without them", async () => {
    type Caps = { stateproofs: unknown; state: unknown };
    for (const from of [1, 17, 54]) {
      const caps = (await result(withTrieFrom(from), "eth_capabilities")) as Caps;
      assert.deepEqual(caps.stateproofs, {
        disabled: false,
        oldestBlock: `0x${from.toString(16)}`,
      });
    }
    // A replica without --verify: no trie nodes at all (state reads still work from genesis).
    const none = (await result(withTrieFrom(55), "eth_capabilities")) as Caps;
    assert.deepEqual(none.stateproofs, { disabled: true });
    assert.deepEqual(none.state, FROM_GENESIS);
  });
});
