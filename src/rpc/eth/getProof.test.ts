import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyMerkleProof } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { call, rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToBigInt, bytesToHex, hexToBytes } from "../../util/hex.ts";

type Proof = {
  address: string;
  accountProof: string[];
  balance: string;
  codeHash: string;
  nonce: string;
  storageHash: string;
  storageProof: Array<{ key: string; value: string; proof: string[] }>;
};
const CONTRACT = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";
let server: RunningServer;

describe("eth_getProof", () => {
  before(async () => {
    server = await fixtureServer("getProof");
  });
  after(async () => {
    await server.close();
  });

  test("account and storage proofs verify against each block's state root", async () => {
    const head = Number(await call(server.dedicatedUrl, "eth_blockNumber"));
    const absent = `0x${"42".repeat(20)}`;
    for (const n of [0, 1, Math.floor(head / 2), head]) {
      const tag = `0x${n.toString(16)}`;
      const block = (await call(server.dedicatedUrl, "eth_getBlockByNumber", [tag, false])) as {
        stateRoot: string;
      };
      for (const address of [CONTRACT, absent]) {
        const p = (await call(server.dedicatedUrl, "eth_getProof", [
          address,
          ["0x0", `0x${"00".repeat(31)}01`],
          tag,
        ])) as Proof;
        // The proof starts at the block's state root; each further node is reached by its hash.
        assert.equal(bytesToHex(keccak256(hexToBytes(p.accountProof[0]!))), block.stateRoot);
        const value = await verifyMerkleProof(
          hexToBytes(address),
          p.accountProof.map((x) => hexToBytes(x)),
          { root: hexToBytes(block.stateRoot), useKeyHashing: true } as never,
        );
        assert.equal(p.balance, await call(server.dedicatedUrl, "eth_getBalance", [address, tag]));
        if (value === null) {
          assert.equal(p.nonce, "0x0", `${address} at ${n}: absent`);
          assert.equal(p.storageProof[0]!.proof.length, 0);
          continue;
        }
        const [nonce, balance, storageRoot] = RLP.decode(value) as Uint8Array[];
        assert.equal(BigInt(p.nonce), bytesToBigInt(nonce!));
        assert.equal(BigInt(p.balance), bytesToBigInt(balance!));
        assert.equal(p.storageHash, bytesToHex(storageRoot!));
        // Keys echo as geth does: a short key as a quantity, a 32-byte one as given.
        assert.deepEqual(
          p.storageProof.map((s) => s.key),
          ["0x0", `0x${"00".repeat(31)}01`],
        );
        for (const [i, s] of p.storageProof.entries()) {
          const slot = `0x${i.toString(16).padStart(64, "0")}`;
          const word = (await call(server.dedicatedUrl, "eth_getStorageAt", [
            address,
            slot,
            tag,
          ])) as string;
          assert.equal(BigInt(s.value), BigInt(word));
          if (s.proof.length === 0) continue;
          assert.equal(bytesToHex(keccak256(hexToBytes(s.proof[0]!))), p.storageHash);
          const proved = await verifyMerkleProof(
            hexToBytes(slot),
            s.proof.map((x) => hexToBytes(x)),
            { root: storageRoot!, useKeyHashing: true } as never,
          );
          assert.equal(
            proved === null ? 0n : bytesToBigInt(RLP.decode(proved) as Uint8Array),
            BigInt(word),
          );
        }
      }
    }
  });

  test("geth's errors", async () => {
    const err = async (params: unknown[]) =>
      (
        (await rpc(server.dedicatedUrl, {
          jsonrpc: "2.0",
          id: 1,
          method: "eth_getProof",
          params,
        })) as {
          error: { code: number; message: string };
        }
      ).error;
    assert.deepEqual(await err([CONTRACT, ["0xzz"], "latest"]), {
      code: -32602,
      message: 'invalid hex in storage key: "0xzz"',
    });
    assert.deepEqual(await err([CONTRACT, Array.from({ length: 1025 }, () => "0x0")]), {
      code: -32602,
      message: "too many storage keys requested (max 1024, got 1025)",
    });
    assert.deepEqual(await err([CONTRACT, [], "0xffff"]), {
      code: -32000,
      message: "header not found",
    });
    assert.deepEqual(await err([CONTRACT, "0x0"]), {
      code: -32602,
      message: "invalid argument 1: json: cannot unmarshal string into Go value of type []string",
    });
  });
});
