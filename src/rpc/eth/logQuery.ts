// One log query over the archive and the pre-confirmed block, with geth's range rules
// (eth/filters FilterAPI.GetLogs, Filter.Logs): eth_getLogs and eth_getFilterLogs run it.
// Candidate blocks come from the archive's log index; their receipts decide exactly.
import type { BlockReceipts } from "../../chain/types.ts";
import type { RpcBackend } from "../../services/backend.ts";
import type { BlockNumberSelector } from "../../services/blockSelector.ts";
import { InvalidParamsError, ServerError } from "../../services/errors.ts";
import type { FilterCriteria } from "../../services/filters.ts";
import { DEFAULT_LOG_LIMITS, type LogQueryLimits } from "../../services/filters.ts";
import { hexToBytes } from "../../util/hex.ts";
import { checkQueryLimit, matchesCriteria } from "../filterCriteria.ts";
import { forEachLog, logJson } from "../format/receipt.ts";
import { livePending, tagNumber } from "../resolveBlock.ts";

const ZERO32 = new Uint8Array(32);

/** geth's rpc.BlockNumber as an int64 (tags negative; an absent bound is `latest`). */
function rawNumber(sel: BlockNumberSelector | undefined): bigint {
  if (sel === undefined) return -2n;
  return sel.kind === "number" ? sel.number : -1n;
}

function matching(block: BlockReceipts, c: FilterCriteria, out: string[]): void {
  forEachLog(block, (log, r, ctx, j) => {
    if (matchesCriteria(c, log.address, log.topics)) out.push(logJson(log, r, ctx, j));
  });
}

/** The rendered logs (JSON objects) that `c` selects, in chain order. */
export function queryLogs(
  backend: RpcBackend,
  c: FilterCriteria,
  limits: LogQueryLimits = DEFAULT_LOG_LIMITS,
): string[] {
  checkQueryLimit(c, limits.queryLimit);
  const chain = backend.chain;
  const out: string[] = [];
  if (c.blockHash !== undefined) {
    const number = chain.blockNumber(c.blockHash);
    const block = number === undefined ? undefined : chain.receipts(number, c.blockHash);
    if (block === undefined) throw new ServerError("unknown block");
    matching(block, c, out);
    return out;
  }
  const begin = rawNumber(c.fromBlock);
  const end = rawNumber(c.toBlock);
  if (begin > 0n && end > 0n && begin > end)
    throw new InvalidParamsError("invalid block range params");
  const head = chain.headNumber();
  if (head === undefined) throw new ServerError("head block not available");
  // The pre-confirmed block is the range's end when asked for (Base serves pending logs; geth
  // refuses them): "pending" without one is "latest", as everywhere.
  const pending = livePending(backend, head);
  const resolve = (sel: BlockNumberSelector | undefined): number => {
    if (sel === undefined) return head;
    // Past the head is refused below; clamped so a huge number stays a safe integer.
    if (sel.kind === "number") return sel.number > BigInt(head) ? head + 1 : Number(sel.number);
    if (sel.tag === "pending") return pending === undefined ? head : pending.base.number;
    return tagNumber(backend, sel.tag, head);
  };
  const first = resolve(c.fromBlock);
  const last = resolve(c.toBlock);
  if (limits.rangeLimit !== 0 && last - first > limits.rangeLimit)
    throw new InvalidParamsError(`exceed maximum block range ${limits.rangeLimit}`);
  if (first > last) throw new InvalidParamsError("invalid block range params");
  // Only the tag reaches the pre-confirmed block: a number past the head is refused, as geth does.
  const withPending =
    pending !== undefined && c.toBlock?.kind === "tag" && c.toBlock.tag === "pending";
  if (last > head && !withPending)
    throw new InvalidParamsError("block range extends beyond current head block");

  const sealedLast = Math.min(last, head);
  if (first <= sealedLast) {
    const addresses =
      c.addresses === undefined ? undefined : [...c.addresses.keys].map((k) => hexToBytes(k));
    const topics = c.topics.map((p) =>
      p === undefined ? undefined : [...p].map((k) => hexToBytes(k)),
    );
    const candidates = chain.logBlocks(first, sealedLast, addresses, topics);
    const visit = (n: number) => {
      const hash = chain.canonicalHash(n);
      const block = hash === undefined ? undefined : chain.receipts(n, hash);
      if (block !== undefined) matching(block, c, out);
    };
    if (candidates !== undefined) for (const n of candidates) visit(n);
    else for (let n = first; n <= sealedLast; n++) visit(n);
  }
  if (withPending && first <= pending.base.number) {
    const b = pending;
    matching(
      {
        blockNumber: b.base.number,
        blockHash: ZERO32,
        blockTimestamp: b.base.timestamp,
        receipts: b.receipts,
      },
      c,
      out,
    );
  }
  return out;
}
