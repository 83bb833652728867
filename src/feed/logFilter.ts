// The `logs` subscription filter with geth's parsing and matching rules
// (eth/filters/api.go FilterCriteria.UnmarshalJSON, filter_system.go SubscribeLogs,
// filter.go filterLogs): positional topics, null = wildcard, nested arrays = OR.

import { InvalidParamsError, ServerError } from "../rpc/errors.ts";
import type { BlockNumberSelector } from "../rpc/params.ts";
import { parseBlockNumberOnly, parseHash32 } from "../rpc/params.ts";
import { goFold } from "../rpc/wire.ts";
import { bytesToUnprefixedHex, unprefixedHexToBytes } from "../util/hex.ts";
import type { LogEvent } from "./types.ts";

/** geth maxTopics: LOG0..LOG4. */
export const MAX_TOPICS = 4;
/** geth maxSubTopics: alternatives in one topic position. */
export const MAX_SUB_TOPICS = 1000;
/** geth ethconfig LogQueryLimit: addresses, or alternatives per topic position. */
export const LOG_QUERY_LIMIT = 1000;

/** A parsed filter, ready to match. Hex keys are lowercase without `0x`. */
export type LogFilter = {
  /** undefined: any address. */
  readonly addresses: ReadonlySet<string> | undefined;
  /** One entry per position; undefined: wildcard. */
  readonly topics: readonly (ReadonlySet<string> | undefined)[];
  /** Inclusive numeric bounds; tags set none (as geth, which skips negative bounds). */
  readonly fromBlock: bigint | undefined;
  readonly toBlock: bigint | undefined;
};

/** A JSON argument error; the caller adds geth's "invalid argument N: " prefix. */
class CriteriaError extends Error {}

/** hexutil.Decode plus the length check of api.go decodeAddress/decodeTopic. */
function decodeFixed(s: string, size: number, what: string): string {
  if (s.length === 0) throw new CriteriaError("empty hex string");
  if (!(s[0] === "0" && (s[1] === "x" || s[1] === "X"))) {
    throw new CriteriaError("hex string without 0x prefix");
  }
  // Go's hex.DecodeString reports a bad digit in the full pairs before an odd length.
  const digits = s.length - 2;
  const even = digits - (digits % 2);
  if (unprefixedHexToBytes(s.slice(0, 2 + even), 2) === undefined) {
    throw new CriteriaError("invalid hex string");
  }
  if (digits % 2 !== 0) {
    if (unprefixedHexToBytes(`0${s[s.length - 1]}`) === undefined) {
      throw new CriteriaError("invalid hex string");
    }
    throw new CriteriaError("hex string of odd length");
  }
  if (digits !== size * 2) {
    throw new CriteriaError(
      `hex has invalid length ${digits / 2} after decoding; expected ${size} for ${what}`,
    );
  }
  return s.slice(2).toLowerCase();
}

function jsonKind(raw: unknown): string {
  if (typeof raw === "string") return "string";
  if (typeof raw === "number") return "number";
  if (typeof raw === "boolean") return "bool";
  return Array.isArray(raw) ? "array" : "object";
}

function blockNumber(raw: unknown): BlockNumberSelector {
  try {
    return parseBlockNumberOnly(raw);
  } catch (e) {
    throw new CriteriaError(e instanceof Error ? e.message : String(e));
  }
}

/** geth rpc.BlockNumber as an int64: tags are negative. */
function blockNumberValue(sel: BlockNumberSelector | undefined): bigint {
  if (sel === undefined) return -2n; // latest
  if (sel.kind === "number") return sel.number;
  switch (sel.tag) {
    case "earliest":
      return -5n;
    case "safe":
      return -4n;
    case "finalized":
      return -3n;
    case "latest":
      return -2n;
    case "pending":
      return -1n;
  }
}

function parseAddresses(raw: unknown): { keys: Set<string>; count: number } | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw === "string") {
    try {
      return { keys: new Set([decodeFixed(raw, 20, "address")]), count: 1 };
    } catch (e) {
      throw new CriteriaError(`invalid address: ${(e as Error).message}`);
    }
  }
  if (!Array.isArray(raw)) throw new CriteriaError("invalid addresses in query");
  const keys = new Set<string>();
  raw.forEach((a: unknown, i) => {
    if (typeof a !== "string") throw new CriteriaError(`non-string address at index ${i}`);
    try {
      keys.add(decodeFixed(a, 20, "address"));
    } catch (e) {
      throw new CriteriaError(`invalid address at index ${i}: ${(e as Error).message}`);
    }
  });
  // An empty list matches any address, as geth's empty slice does.
  return keys.size === 0 ? undefined : { keys, count: raw.length };
}

function parseTopicPosition(t: unknown): { keys: Set<string>; count: number } | undefined {
  if (t === null) return undefined;
  if (typeof t === "string") return { keys: new Set([decodeFixed(t, 32, "topic")]), count: 1 };
  if (!Array.isArray(t)) throw new CriteriaError("invalid topic(s)");
  if (t.length > MAX_SUB_TOPICS) throw new CriteriaError("exceed max topics");
  const keys = new Set<string>();
  let count = 0;
  for (const alt of t) {
    if (alt === null) return undefined; // a null alternative makes the position a wildcard
    if (typeof alt !== "string") throw new CriteriaError("invalid topic(s)");
    keys.add(decodeFixed(alt, 32, "topic"));
    count++;
  }
  return count === 0 ? undefined : { keys, count };
}

/**
 * The second `eth_subscribe("logs", …)` argument (null or missing: match everything).
 * Argument errors carry geth's `invalid argument 1: ` prefix; criteria geth rejects when
 * subscribing keep their own texts and codes.
 */
export function parseLogFilter(raw: unknown): LogFilter {
  let addresses: { keys: Set<string>; count: number } | undefined;
  const topics: (Set<string> | undefined)[] = [];
  let topicCounts: number[] = [];
  let from: BlockNumberSelector | undefined;
  let to: BlockNumberSelector | undefined;
  try {
    if (raw !== null && raw !== undefined) {
      if (typeof raw !== "object" || Array.isArray(raw)) {
        throw new CriteriaError(
          `json: cannot unmarshal ${jsonKind(raw)} into Go value of type filters.input`,
        );
      }
      let hash: Uint8Array | undefined;
      let rawAddresses: unknown;
      let rawTopics: unknown;
      // encoding/json matches keys case-insensitively; the last duplicate wins.
      for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
        switch (goFold(key)) {
          case "blockhash":
            hash = value === null ? undefined : parseHashArg(value);
            break;
          case "fromblock":
            from = value === null ? undefined : blockNumber(value);
            break;
          case "toblock":
            to = value === null ? undefined : blockNumber(value);
            break;
          case "address":
            rawAddresses = value;
            break;
          case "topics":
            rawTopics = value;
            break;
        }
      }
      if (hash !== undefined && (from !== undefined || to !== undefined)) {
        throw new CriteriaError(
          "cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
        );
      }
      // A block hash is accepted and ignored: a subscription only sees new blocks (geth).
      if (hash !== undefined) from = to = undefined;
      addresses = parseAddresses(rawAddresses);
      if (rawTopics !== null && rawTopics !== undefined) {
        if (!Array.isArray(rawTopics)) {
          throw new CriteriaError(
            `json: cannot unmarshal ${jsonKind(rawTopics)} into Go struct field input.topics of type []interface {}`,
          );
        }
        if (rawTopics.length > MAX_TOPICS) throw new CriteriaError("exceed max topics");
        topicCounts = [];
        for (const t of rawTopics) {
          const pos = parseTopicPosition(t);
          topics.push(pos?.keys);
          topicCounts.push(pos?.count ?? 0);
        }
      }
    }
  } catch (e) {
    if (e instanceof CriteriaError)
      throw new InvalidParamsError(`invalid argument 1: ${e.message}`);
    throw e;
  }
  return checkCriteria(addresses, topics, topicCounts, from, to);
}

function parseHashArg(value: unknown): Uint8Array {
  try {
    return parseHash32(value);
  } catch (e) {
    throw new CriteriaError((e as Error).message);
  }
}

/** SubscribeLogs: query limits and the block range a live subscription accepts. */
function checkCriteria(
  addresses: { keys: Set<string>; count: number } | undefined,
  topics: (Set<string> | undefined)[],
  topicCounts: readonly number[],
  fromSel: BlockNumberSelector | undefined,
  toSel: BlockNumberSelector | undefined,
): LogFilter {
  if ((addresses?.count ?? 0) > LOG_QUERY_LIMIT || topicCounts.some((n) => n > LOG_QUERY_LIMIT)) {
    throw new ServerError("exceed max addresses or topics per search position");
  }
  let from = blockNumberValue(fromSel);
  const to = blockNumberValue(toSel);
  if (from === -1n || to === -1n) throw new InvalidParamsError("pending logs are not supported");
  if (from === -5n) from = 0n; // earliest → the history cutoff (no pruning here)
  const latest = -2n;
  const ok =
    (from === latest && to === latest) ||
    (from >= 0n && to >= 0n && to >= from) ||
    (from >= 0n && to === latest);
  if (!ok) throw new InvalidParamsError("invalid block range params");
  // filterLogs ignores negative bounds, so "earliest" as fromBlock sets no lower bound.
  const fromBound = fromSel?.kind === "number" ? fromSel.number : undefined;
  const toBound = toSel?.kind === "number" ? toSel.number : undefined;
  return {
    addresses: addresses?.keys,
    topics,
    fromBlock: fromBound,
    toBlock: toBound,
  };
}

const BLOCK_NUMBER_KEY = '"blockNumber":"';

/** The log's block number from its rendered JSON (LogEvent carries none); undefined if absent. */
export function logBlockNumber(json: string): bigint | undefined {
  const at = json.indexOf(BLOCK_NUMBER_KEY);
  if (at < 0) return undefined;
  const start = at + BLOCK_NUMBER_KEY.length;
  const end = json.indexOf('"', start);
  if (end < 0) return undefined;
  try {
    return BigInt(json.slice(start, end));
  } catch {
    return undefined;
  }
}

/** geth filterLogs' check for one log. */
export function matchLog(filter: LogFilter, log: LogEvent): boolean {
  if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
    const n = logBlockNumber(log.json);
    if (n !== undefined) {
      if (filter.fromBlock !== undefined && filter.fromBlock > n) return false;
      if (filter.toBlock !== undefined && filter.toBlock < n) return false;
    }
  }
  if (filter.addresses !== undefined && !filter.addresses.has(bytesToUnprefixedHex(log.address))) {
    return false;
  }
  // More topic positions than the log has topics: no match, even for wildcards.
  if (filter.topics.length > log.topics.length) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    const alternatives = filter.topics[i];
    if (alternatives === undefined) continue;
    if (!alternatives.has(bytesToUnprefixedHex(log.topics[i]!))) return false;
  }
  return true;
}
