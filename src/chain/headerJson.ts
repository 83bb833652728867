// A block header as JSON-RPC shows it (eth_getBlockBy*), back to its consensus RLP: the fields in
// the header's order, each later field present only while the JSON has it (London's base fee,
// Shanghai's withdrawals root, Cancun's blob gas and beacon root, Prague's requests hash). Written
// without the EVM library's fork rules, so any chain's header round-trips whatever hardfork it
// runs, and checked against the block's hash.
import { type Input, RLP } from "@ethereumjs/rlp";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex, equalBytes, trimLeadingZeros, unprefixedHexToBytes } from "../util/hex.ts";

export class HeaderJsonError extends FlashnodeError {
  readonly code = "HEADER_JSON";
}

type Kind = "data" | "quantity";

/** The consensus order; fields from `baseFeePerGas` on are optional, each needing the one before. */
const FIELDS: readonly (readonly [name: string, kind: Kind, optional: boolean])[] = [
  ["parentHash", "data", false],
  ["sha3Uncles", "data", false],
  ["miner", "data", false],
  ["stateRoot", "data", false],
  ["transactionsRoot", "data", false],
  ["receiptsRoot", "data", false],
  ["logsBloom", "data", false],
  ["difficulty", "quantity", false],
  ["number", "quantity", false],
  ["gasLimit", "quantity", false],
  ["gasUsed", "quantity", false],
  ["timestamp", "quantity", false],
  ["extraData", "data", false],
  ["mixHash", "data", false],
  ["nonce", "data", false],
  ["baseFeePerGas", "quantity", true],
  ["withdrawalsRoot", "data", true],
  ["blobGasUsed", "quantity", true],
  ["excessBlobGas", "quantity", true],
  ["parentBeaconBlockRoot", "data", true],
  ["requestsHash", "data", true],
];

function bytesOf(name: string, kind: Kind, v: unknown): Uint8Array {
  if (typeof v !== "string" || !v.startsWith("0x"))
    throw new HeaderJsonError(`header field ${name} is not hex: ${JSON.stringify(v)}`);
  const even = v.length % 2 === 1 ? `0x0${v.slice(2)}` : v;
  const bytes = unprefixedHexToBytes(even, 2);
  if (bytes === undefined) throw new HeaderJsonError(`header field ${name} is not hex: ${v}`);
  return kind === "quantity" ? trimLeadingZeros(bytes) : bytes;
}

/** The header's RLP from a JSON block; throws if it does not hash to the block's `hash`. */
export function headerRlpFromJson(block: Readonly<Record<string, unknown>>): Uint8Array {
  const fields: Input[] = [];
  for (const [name, kind, optional] of FIELDS) {
    const v = block[name];
    if (v === undefined || v === null) {
      if (optional) break;
      throw new HeaderJsonError(`header field ${name} is missing`);
    }
    fields.push(bytesOf(name, kind, v));
  }
  const rlp = RLP.encode(fields);
  const hash = block.hash;
  if (typeof hash === "string" && !equalBytes(keccak256(rlp), bytesOf("hash", "data", hash)))
    throw new HeaderJsonError(
      `block ${String(block.number)}'s header does not hash to ${hash} from the fields it shows (${bytesToHex(keccak256(rlp))}): the chain's header carries fields flashnode does not know`,
    );
  return rlp;
}

/** Which of the hardfork-dependent header fields a JSON header shows (its era). */
export type HeaderEra = "london" | "shanghai" | "cancun" | "prague" | "legacy";

export function headerEra(block: Readonly<Record<string, unknown>>): HeaderEra {
  const has = (k: string) => block[k] !== undefined && block[k] !== null;
  if (has("requestsHash")) return "prague";
  if (has("parentBeaconBlockRoot")) return "cancun";
  if (has("withdrawalsRoot")) return "shanghai";
  if (has("baseFeePerGas")) return "london";
  return "legacy";
}
