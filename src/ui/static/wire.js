// Reading what the node sends: flashblocks in Base's wire format (as `newFlashblocks` carries
// them) and geth's headers. Tolerant: `metadata.receipts` exists only in Base's v0.5-style
// messages (flashnode sends it; Base's v0.8 does not), receipts may be internally tagged
// ({"type":"0x2",…}) or externally tagged ({"Eip1559":{…}}), and index 0 may carry an OP-stack
// deposit (type 0x7e) rather than nothing.

export const DEPOSIT_TYPE = 0x7e;

const TAGS = { Legacy: 0, Eip2930: 1, Eip1559: 2, Eip4844: 3, Eip7702: 4, Deposit: DEPOSIT_TYPE };

export function hexNumber(v) {
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) return Number.parseInt(v, 16);
  return undefined;
}

/** The EIP-2718 type of a raw transaction (0x-hex): its first byte, or 0 for a legacy RLP list. */
export function rawType(raw) {
  if (typeof raw !== "string" || raw.length < 4) return undefined;
  const first = Number.parseInt(raw.slice(2, 4), 16);
  return first >= 0xc0 ? 0 : first;
}

/** One receipt of metadata.receipts as {type, status, cumulativeGasUsed}. */
function readReceipt(value) {
  if (value === null || typeof value !== "object") return {};
  let r = value;
  let type = hexNumber(value.type);
  if (type === undefined) {
    const [tag] = Object.keys(value);
    if (tag !== undefined && tag in TAGS) {
      type = TAGS[tag];
      r = value[tag] ?? {};
    }
  }
  const status =
    r.status === true || r.status === "0x1"
      ? 1
      : r.status === false || r.status === "0x0"
        ? 0
        : undefined;
  return { type, status, cumulativeGasUsed: hexNumber(r.cumulativeGasUsed) };
}

/**
 * A flashblock: {block, index, base?, gasUsed, transactions: [{hash?, type, status?, gas?}]}.
 * Hashes come from metadata.receipts (in transaction order); without them they are undefined and
 * the page asks the node for the pending block's hashes.
 */
export function readFlashblock(msg, previousCumulativeGas = 0) {
  const diff = msg?.diff ?? {};
  const block = hexNumber(msg?.metadata?.block_number) ?? hexNumber(msg?.base?.block_number);
  const raws = Array.isArray(diff.transactions) ? diff.transactions : [];
  const receipts =
    msg?.metadata?.receipts !== null && typeof msg?.metadata?.receipts === "object"
      ? Object.entries(msg.metadata.receipts)
      : [];
  const withHashes = receipts.length === raws.length;
  let cumulative = previousCumulativeGas;
  const transactions = raws.map((raw, i) => {
    const typeOfRaw = rawType(raw);
    if (!withHashes) return { hash: undefined, type: typeOfRaw };
    const [hash, value] = receipts[i];
    const r = readReceipt(value);
    let gas;
    if (r.cumulativeGasUsed !== undefined) {
      gas = r.cumulativeGasUsed - cumulative;
      cumulative = r.cumulativeGasUsed;
    }
    return { hash: hash.toLowerCase(), type: r.type ?? typeOfRaw, status: r.status, gas };
  });
  const base =
    msg?.base !== null && typeof msg?.base === "object"
      ? { gasLimit: hexNumber(msg.base.gas_limit), timestamp: hexNumber(msg.base.timestamp) }
      : undefined;
  return {
    block,
    index: typeof msg?.index === "number" ? msg.index : hexNumber(msg?.index),
    base,
    gasUsed: hexNumber(diff.gas_used) ?? 0,
    transactions,
  };
}

export function typeLabel(type) {
  if (type === DEPOSIT_TYPE) return "deposit";
  if (type === undefined) return "—";
  return ["legacy", "2930", "1559", "blob", "7702"][type] ?? `0x${type.toString(16)}`;
}
