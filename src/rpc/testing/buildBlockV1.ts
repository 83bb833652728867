import type { HeaderView } from "../../chain/blockView.ts";
import type { RpcBackend } from "../../services/backend.ts";
import type { BuiltPayload } from "../../services/buildBlock.ts";
import { ServerError } from "../../services/errors.ts";
import type { PoolContent } from "../../services/transactions.ts";
import { equalBytes } from "../../util/hex.ts";
import { array, data, object, qty } from "../../util/json.ts";
import { callService } from "../eth/callTarget.ts";
import { defineMethod, optional, RawJson, required } from "../method.ts";
import { parseBlockHash, parseHexBytes } from "../params.ts";
import { parsePayloadAttributes, parseTransactionList } from "./payloadAttributes.ts";

/** geth's ExecutableData, as its gencodec writes it (nil pointers as null). */
function executionPayload(h: HeaderView, p: BuiltPayload): string {
  return object([
    ["parentHash", data(h.parentHash)],
    ["feeRecipient", data(h.coinbase)],
    ["stateRoot", data(h.stateRoot)],
    ["receiptsRoot", data(h.receiptTrie)],
    ["logsBloom", data(h.logsBloom)],
    ["prevRandao", data(h.mixHash)],
    ["blockNumber", qty(h.number)],
    ["gasLimit", qty(h.gasLimit)],
    ["gasUsed", qty(h.gasUsed)],
    ["timestamp", qty(h.timestamp)],
    ["extraData", data(h.extraData)],
    ["baseFeePerGas", h.baseFeePerGas === undefined ? "null" : qty(h.baseFeePerGas)],
    ["blockHash", data(h.hash)],
    ["transactions", array(p.transactions, data)],
    [
      "withdrawals",
      p.withdrawals === undefined
        ? "null"
        : array(p.withdrawals, (w) =>
            object([
              ["index", qty(w.index)],
              ["validatorIndex", qty(w.validatorIndex)],
              ["address", data(w.address)],
              ["amount", qty(w.amount)],
            ]),
          ),
    ],
    ["blobGasUsed", h.blobGasUsed === undefined ? "null" : qty(h.blobGasUsed)],
    ["excessBlobGas", h.excessBlobGas === undefined ? "null" : qty(h.excessBlobGas)],
  ]);
}

/** The pool's pending transactions, in the order the sequencer runs them; none on a node without. */
async function poolPending(backend: RpcBackend): Promise<PoolContent["pending"]> {
  const sink = backend.transactions;
  if (sink?.poolContent === undefined) return [];
  return (await sink.poolContent()).pending;
}

/**
 * testing_buildBlockV1(parentHash, payloadAttributes, transactions | null, extraData?) →
 * {executionPayload, blockValue, blobsBundle, executionRequests, shouldOverrideBuilder}: geth's
 * testing API. Builds a block on the head, from exactly the given transactions (each must apply:
 * the first that cannot is the error), or from the pool's pending ones when null (those that
 * cannot run are left out); the block is returned, never stored.
 */
export function buildBlockV1(backend: RpcBackend) {
  return defineMethod({
    params: [
      required(parseBlockHash),
      required(parsePayloadAttributes),
      optional(parseTransactionList),
      optional(parseHexBytes),
    ],
    reads: "ownBlocks",
    handler: async ([parentHash, attributes, given, extraData]) => {
      const head = backend.chain.headNumber();
      const headHash = head === undefined ? undefined : backend.chain.canonicalHash(head);
      if (head === undefined || headHash === undefined || !equalBytes(headHash, parentHash))
        throw new ServerError("parentHash is not current head");
      const pool = given === undefined ? await poolPending(backend) : undefined;
      const payload = await callService(backend).buildBlock({
        parent: head,
        parentHash,
        timestamp: attributes.timestamp,
        prevRandao: attributes.prevRandao,
        feeRecipient: attributes.suggestedFeeRecipient,
        withdrawals: attributes.withdrawals,
        parentBeaconBlockRoot: attributes.parentBeaconBlockRoot,
        transactions: given ?? (pool ?? []).map((t) => t.withSidecar ?? t.raw),
        fromPool: given === undefined,
        extraData: extraData ?? new Uint8Array(0),
      });
      const header = backend.decoder.header(payload.headerRlp);
      return new RawJson(
        object([
          ["executionPayload", executionPayload(header, payload)],
          ["blockValue", qty(payload.blockValue)],
          [
            "blobsBundle",
            object([
              ["commitments", array(payload.blobs.commitments, data)],
              ["proofs", array(payload.blobs.proofs, data)],
              ["blobs", array(payload.blobs.blobs, data)],
            ]),
          ],
          [
            "executionRequests",
            payload.requests === undefined ? "null" : array(payload.requests, data),
          ],
          ["shouldOverrideBuilder", "false"],
        ]),
      );
    },
  });
}
