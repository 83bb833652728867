// blockRlpFromJson against three real sources of eth_getBlockByNumber(n, true): geth's answers on
// the execution-apis chain (whose blocks fixtures/ carries as RLP), anvil (Prague) mining every
// signed transaction type, and a `flashnode dev` OP-stack chain whose blocks open with the
// L1-info deposit and carry user deposits. The rebuilt bytes are compared with the source's own,
// and decoded with blockFromRlp, whose block must have the JSON's hashes and roots.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Block } from "@ethereumjs/block";
import { type Common, createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { parseGwei, toBlobs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type Anvil, startAnvilUpstream } from "../../test/utils/anvilUpstream.ts";
import { type DevNode, startTestDevNode } from "../../test/utils/devChain.ts";
import { CHAIN_RLP, call, GENESIS, ioCases } from "../../test/utils/fixtures.ts";
import { keccak256, nativeCrypto } from "../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import { nativeKzg } from "../util/kzg.ts";
import { BlockJsonError, blockRlpFromJson } from "./blockJson.ts";
import { chainSpecFromFile } from "./genesis.ts";
import { HeaderJsonError, headerRlpFromJson } from "./headerJson.ts";
import { blockFromRlp } from "./op/blockTx.ts";
import { ChainFile } from "./rlpFile.ts";
import { rawTransactionFromJson, TransactionJsonError } from "./txJson.ts";

type Json = Record<string, unknown>;
type BlockJson = Json & { hash: string; number: string; transactions: Json[] };

function answer(folder: "tests" | "tests-more", method: string, name: string): unknown {
  const io = ioCases(folder, [method]).find((c) => c.file === `${method}/${name}.io`);
  return (JSON.parse(io!.response) as { result: unknown }).result;
}

/** The rebuilt bytes decode to the JSON's block: its hash and its transactions' hashes. */
function decodesTo(raw: Uint8Array, json: BlockJson, common: Common, setHardfork = false): Block {
  const block = blockFromRlp(raw, { common, setHardfork });
  assert.equal(bytesToHex(block.hash()), json.hash);
  assert.deepEqual(
    block.transactions.map((t) => bytesToHex(t.hash())),
    json.transactions.map((t) => t.hash),
  );
  return block;
}

describe("geth's blocks (execution-apis chain)", () => {
  const blocks = [...ChainFile.open(CHAIN_RLP).items()].map((b) => bytesToHex(b.bytes));
  const shown = [
    answer("tests", "eth_getBlockByHash", "get-block-by-hash"),
    answer("tests", "eth_getBlockByNumber", "get-latest"),
  ] as BlockJson[];

  test("rebuild to the chain file's bytes: legacy transactions, Prague header, withdrawals", async () => {
    const spec = await chainSpecFromFile(GENESIS);
    for (const json of shown) {
      assert.ok(json.transactions.length > 0);
      const raw = blockRlpFromJson(json);
      // chain.rlp holds blocks 1… in order.
      assert.equal(bytesToHex(raw), blocks[Number(json.number) - 1], `block ${json.number}`);
      const block = decodesTo(raw, json, spec.common, true);
      assert.ok(await block.transactionsTrieIsValid());
      if (json.withdrawalsRoot !== undefined) assert.ok(await block.withdrawalsTrieIsValid());
    }
    assert.ok(shown.some((b) => b.withdrawalsRoot !== undefined && b.requestsHash !== undefined));
  });

  test("the genesis block is debug_getRawBlock's", () => {
    const genesis = answer("tests", "eth_getBlockByNumber", "get-genesis") as BlockJson;
    assert.equal(
      bytesToHex(blockRlpFromJson(genesis)),
      answer("tests-more", "debug_getRawBlock", "get-genesis"),
    );
  });

  test("what cannot be rebuilt is refused", () => {
    const head = shown[1]!;
    const withHashes = answer("tests", "eth_getBlockByNumber", "get-block-prague-fork") as Json;
    assert.throws(() => blockRlpFromJson(withHashes), /transaction 0 is "0x.*full transactions/);
    // Uncles named in the list, or only in a header (hashing right) that commits to some.
    const uncle = `0x${"11".repeat(32)}`;
    const withUncles = { ...head, sha3Uncles: uncle, hash: undefined, uncles: undefined };
    const hash = bytesToHex(keccak256(headerRlpFromJson(withUncles)));
    for (const bad of [
      { ...head, uncles: [uncle] },
      { ...withUncles, hash },
    ])
      assert.throws(
        () => blockRlpFromJson(bad),
        (e: unknown) => e instanceof BlockJsonError && /has uncles/.test(e.message),
      );
    assert.throws(
      () => blockRlpFromJson({ ...head, withdrawals: undefined }),
      /withdrawals root but no withdrawals list/,
    );
    assert.throws(
      () => blockRlpFromJson({ ...head, withdrawals: [{ index: "0x0", validatorIndex: "0x1" }] }),
      /withdrawal 0's address is undefined/,
    );
    assert.throws(() => blockRlpFromJson({ ...head, gasUsed: "0x1" }), HeaderJsonError);
    const tx = head.transactions[2]!;
    assert.throws(
      () => blockRlpFromJson({ ...head, transactions: [{ ...tx, nonce: "0x0" }] }),
      (e: unknown) => e instanceof TransactionJsonError && e.message.includes(tx.hash as string),
    );
  });
});

const ANVIL_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

describe("anvil (Prague): every signed type", () => {
  let anvil: Anvil;
  /** Block 1: types 0 (EIP-155, and pre-155 creating), 1, 2, 4; block 2: a blob transaction. */
  let blocks: BlockJson[];

  before(async () => {
    anvil = await startAnvilUpstream(["--hardfork", "prague", "--no-mining"]);
    const account = privateKeyToAccount(ANVIL_KEY);
    const chainId = 31337;
    const to = "0x1000000000000000000000000000000000000001";
    const gasPrice = parseGwei("20");
    const fees = { chainId, maxFeePerGas: gasPrice, maxPriorityFeePerGas: 1n };
    const authorization = await account.signAuthorization({
      chainId,
      contractAddress: to,
      nonce: 9,
    });
    // viem's KZG on the node's own binding (one trusted setup per process).
    const kzg = {
      blobToKzgCommitment: (b: Uint8Array) =>
        hexToBytes(nativeKzg.blobToKzgCommitment(bytesToHex(b))),
      computeBlobKzgProof: (b: Uint8Array, c: Uint8Array) =>
        hexToBytes(nativeKzg.computeBlobProof(bytesToHex(b), bytesToHex(c))),
    };
    const keys = [`0x${"00".repeat(31)}01`];
    const requests = [
      { chainId, type: "legacy", nonce: 0, gas: 21000n, gasPrice, to, value: 1n },
      // No chain id: a pre-EIP-155 signature (v 27/28), creating a contract.
      { type: "legacy", nonce: 1, gas: 100_000n, gasPrice, data: "0x600080fd" },
      {
        chainId,
        type: "eip2930",
        nonce: 2,
        gas: 30_000n,
        gasPrice,
        to,
        accessList: [{ address: to, storageKeys: keys }],
      },
      { ...fees, type: "eip1559", nonce: 3, gas: 21000n, to, value: 5n },
      { ...fees, type: "eip7702", nonce: 4, gas: 100_000n, to, authorizationList: [authorization] },
      {
        ...fees,
        type: "eip4844",
        nonce: 5,
        gas: 21000n,
        to,
        blobs: toBlobs({ data: `0x${"cd".repeat(500)}` }),
        kzg,
        maxFeePerBlobGas: parseGwei("30"),
      },
    ];
    const signed = await Promise.all(requests.map((r) => account.signTransaction(r as never)));
    for (const [i, raw] of signed.entries()) {
      if (i === 5) await anvil.rpc("evm_mine");
      await anvil.rpc("eth_sendRawTransaction", [raw]);
    }
    await anvil.rpc("evm_mine");
    blocks = await Promise.all(
      ["0x1", "0x2"].map((n) => anvil.rpc<BlockJson>("eth_getBlockByNumber", [n, true])),
    );
  });
  after(() => anvil?.stop());

  test("each transaction is anvil's debug_getRawTransaction", async () => {
    const txs = blocks.flatMap((b) => b.transactions);
    assert.deepEqual(
      txs.map((t) => t.type),
      ["0x0", "0x0", "0x1", "0x2", "0x4", "0x3"],
    );
    assert.equal(txs[1]!.to, null);
    assert.match(txs[1]!.v as string, /^0x1[bc]$/);
    for (const tx of txs) {
      const theirs = hexToBytes(await anvil.rpc<string>("debug_getRawTransaction", [tx.hash]));
      // anvil 1.7 answers a mined blob transaction in its network form, 0x03 ‖ rlp([tx, blobs,
      // commitments, proofs]) (foundry-rs/foundry#15132); the block holds 0x03 ‖ rlp(tx).
      const fields = theirs[0] === 3 ? (RLP.decode(theirs.subarray(1)) as unknown[]) : [];
      const blockForm = Array.isArray(fields[0])
        ? Uint8Array.from([3, ...RLP.encode(fields[0] as Uint8Array[])])
        : theirs;
      assert.equal(
        bytesToHex(rawTransactionFromJson(tx)),
        bytesToHex(blockForm),
        `type ${tx.type}`,
      );
    }
  });

  test("the blocks decode to anvil's hashes and roots", async () => {
    const common = createCustomCommon({ chainId: 31337 }, Mainnet, {
      hardfork: Hardfork.Prague,
      customCrypto: { ...nativeCrypto, kzg: nativeKzg },
    });
    const [plain, blob] = blocks.map((json) => decodesTo(blockRlpFromJson(json), json, common));
    assert.ok(await plain!.transactionsTrieIsValid());
    assert.ok(await plain!.withdrawalsTrieIsValid());
    assert.equal(blob!.header.blobGasUsed, 131072n);
    // Not blob's transactions root: anvil 1.7 commits it over the network form (#15132 above).
  });
});

describe("flashnode dev (OP stack): deposits and signed transactions", () => {
  let node: DevNode;
  const rpc = (method: string, params: unknown[] = []) => call(node.dedicatedUrl, method, params);

  before(async () => {
    node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
    const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
    const chainId = Number(node.chainId);
    const to = node.accounts[1]!.address as `0x${string}`;
    const gasPrice = parseGwei("20");
    const fees = { maxFeePerGas: gasPrice, maxPriorityFeePerGas: 1n };
    const authorization = await account.signAuthorization({
      chainId,
      contractAddress: to,
      nonce: 3,
    });
    const signed = [
      await account.signTransaction({
        chainId,
        type: "legacy",
        nonce: 0,
        gas: 21000n,
        gasPrice,
        to,
        value: 1n,
      }),
      await account.signTransaction({
        chainId,
        type: "eip2930",
        nonce: 1,
        gas: 21000n,
        gasPrice,
        to,
        accessList: [],
      }),
      await account.signTransaction({
        chainId,
        type: "eip1559",
        nonce: 2,
        gas: 21000n,
        ...fees,
        to,
      }),
      await account.signTransaction({
        chainId,
        type: "eip7702",
        nonce: 3,
        gas: 100_000n,
        ...fees,
        to,
        authorizationList: [authorization],
      }),
    ];
    for (const raw of signed) await rpc("eth_sendRawTransaction", [raw]);
    // User deposits: a creation minting ETH, and a plain call (no mint: absent from the JSON).
    await rpc("flashnode_depositTransaction", [
      { from: to, mint: "0xde0b6b3a7640000", data: "0x600080fd", gas: "0x30000" },
    ]);
    await rpc("flashnode_depositTransaction", [{ from: to, to, data: "0x" }]);
    // The deposits run at the start of the block after the one being built.
    await rpc("evm_mine");
    await rpc("evm_mine");
  });
  after(async () => {
    await node?.close();
  });

  test("every block is its debug_getRawBlock and decodes to its hashes", async () => {
    const common = createCustomCommon({ chainId: Number(node.chainId) }, Mainnet, {
      hardfork: Hardfork.Prague,
    });
    const head = Number(await rpc("eth_blockNumber"));
    const seen: Json[] = [];
    for (let n = 0; n <= head; n++) {
      const json = (await rpc("eth_getBlockByNumber", [`0x${n.toString(16)}`, true])) as BlockJson;
      const raw = blockRlpFromJson(json);
      assert.equal(bytesToHex(raw), await rpc("debug_getRawBlock", [json.number]), `block ${n}`);
      if (n > 0) {
        assert.equal(
          json.transactions[0]?.type,
          "0x7e",
          `block ${n} opens with the L1-info deposit`,
        );
        assert.ok(await decodesTo(raw, json, common).transactionsTrieIsValid(), `block ${n}`);
      }
      seen.push(...json.transactions);
    }
    const deposits = seen.filter((t) => t.type === "0x7e");
    assert.ok(
      deposits.some((t) => t.to === null && t.mint === "0xde0b6b3a7640000"),
      "minting creation",
    );
    assert.ok(
      deposits.some((t) => t.to !== null && t.mint === undefined),
      "a deposit without mint",
    );
    assert.deepEqual([...new Set(seen.map((t) => t.type))].sort(), [
      "0x0",
      "0x1",
      "0x2",
      "0x4",
      "0x7e",
    ]);
  });
});
