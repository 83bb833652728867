// A log filter object (eth_getLogs, eth_newFilter, the `logs` subscription) with geth's parsing
// rules (eth/filters/api.go FilterCriteria.UnmarshalJSON): positional topics, null = wildcard,
// nested arrays = OR, and geth's exact error texts.

import type { BlockNumberSelector, BlockSelector } from "../services/blockSelector.ts";
import { InvalidParamsError, ServerError } from "../services/errors.ts";
import type { FilterCriteria } from "../services/filters.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToUnprefixedHex, unprefixedHexToBytes } from "../util/hex.ts";
import {
  type BlockParser,
  LATEST,
  namesBlocks,
  PENDING,
  parseBlockNumberOnly,
  parseHash32,
} from "./params.ts";
import { goFold } from "./wire.ts";

/** geth maxTopics: LOG0..LOG4. */
export const MAX_TOPICS = 4;
/** geth maxSubTopics: alternatives in one topic position. */
export const MAX_SUB_TOPICS = 1000;
/** geth ethconfig LogQueryLimit: addresses, or alternatives per topic position. */
export const LOG_QUERY_LIMIT = 1000;

/** A JSON argument error; the caller adds geth's "invalid argument N: " prefix. */
class CriteriaError extends FlashnodeError {
  readonly code = "FILTER_CRITERIA";
}

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
 * A filter object argument (null or missing: match everything). Errors are -32602 with geth's
 * text, prefixed `invalid argument N: ` when `argIndex` is given (a method's parameter parser
 * leaves the prefix to the dispatcher).
 */
export function parseFilterCriteria(raw: unknown, argIndex?: number): FilterCriteria {
  let addresses: { keys: Set<string>; count: number } | undefined;
  const topics: (Set<string> | undefined)[] = [];
  let topicCounts: number[] = [];
  let from: BlockNumberSelector | undefined;
  let to: BlockNumberSelector | undefined;
  let hash: Uint8Array | undefined;
  try {
    if (raw !== null && raw !== undefined) {
      if (typeof raw !== "object" || Array.isArray(raw)) {
        throw new CriteriaError(
          `json: cannot unmarshal ${jsonKind(raw)} into Go value of type filters.input`,
        );
      }
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
      throw new InvalidParamsError(
        argIndex === undefined ? e.message : `invalid argument ${argIndex}: ${e.message}`,
      );
    throw e;
  }
  return { blockHash: hash, fromBlock: from, toBlock: to, addresses, topics, topicCounts };
}

/** The blocks a filter's range names: its block hash, or its ends (latest when left out). */
function rangeBlocks(c: FilterCriteria): readonly BlockSelector[] {
  return c.blockHash !== undefined
    ? [{ kind: "hash", hash: c.blockHash, requireCanonical: false }]
    : [c.fromBlock ?? LATEST, c.toBlock ?? LATEST];
}

/** eth_getLogs' filter: fromBlock and toBlock left out are latest, as in geth. */
export const parseFilterParam: BlockParser<FilterCriteria> = namesBlocks(
  (raw: unknown) => parseFilterCriteria(raw),
  rangeBlocks,
);

/**
 * Whether an installed log filter's range is open at the top (no toBlock, or "pending"): it then
 * reports logs as their transactions are pre-confirmed (feed/filters.ts).
 */
export function followsPending(c: Pick<FilterCriteria, "toBlock">): boolean {
  const top = c.toBlock;
  return top === undefined || (top.kind === "tag" && top.tag === "pending");
}

/**
 * eth_newFilter's filter. Without a toBlock the filter follows the pre-confirmed logs, so it
 * names pending there: a policy that keeps pending from a tier keeps such filters from it too.
 */
export const parseInstalledFilterParam: BlockParser<FilterCriteria> = namesBlocks(
  (raw: unknown) => parseFilterCriteria(raw),
  (c) =>
    c.blockHash === undefined && followsPending(c)
      ? [c.fromBlock ?? LATEST, PENDING]
      : rangeBlocks(c),
);

/** geth's LogQueryLimit: more addresses, or alternatives in one topic position, are refused. */
export function checkQueryLimit(c: FilterCriteria, limit: number): void {
  if (limit === 0) return;
  if ((c.addresses?.count ?? 0) > limit || c.topicCounts.some((n) => n > limit)) {
    throw new ServerError("exceed max addresses or topics per search position");
  }
}

/** geth filterLogs' address and topic check for one log (hex keys: lowercase, no 0x). */
export function matchesCriteria(
  c: Pick<FilterCriteria, "addresses" | "topics">,
  address: Uint8Array,
  topics: readonly Uint8Array[],
): boolean {
  if (c.addresses !== undefined && !c.addresses.keys.has(bytesToUnprefixedHex(address))) {
    return false;
  }
  // More topic positions than the log has topics: no match, even for wildcards.
  if (c.topics.length > topics.length) return false;
  for (let i = 0; i < c.topics.length; i++) {
    const alternatives = c.topics[i];
    if (alternatives === undefined) continue;
    if (!alternatives.has(bytesToUnprefixedHex(topics[i]!))) return false;
  }
  return true;
}

function parseHashArg(value: unknown): Uint8Array {
  try {
    return parseHash32(value);
  } catch (e) {
    throw new CriteriaError((e as Error).message);
  }
}
