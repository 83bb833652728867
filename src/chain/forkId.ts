// EIP-2124 fork identifiers, as geth computes them (core/forkid): a CRC32 over the genesis hash,
// then over each passed fork's block number, then each passed fork's timestamp (8 bytes,
// big-endian), with the next scheduled fork beside it. eth_config reports them (EIP-7910).

/** geth's ChainConfig fields that schedule a fork by block number (the JSON names). */
export const BLOCK_FORK_FIELDS = [
  "homesteadBlock",
  "daoForkBlock",
  "eip150Block",
  "eip155Block",
  "eip158Block",
  "byzantiumBlock",
  "constantinopleBlock",
  "petersburgBlock",
  "istanbulBlock",
  "muirGlacierBlock",
  "berlinBlock",
  "londonBlock",
  "arrowGlacierBlock",
  "grayGlacierBlock",
  "mergeNetsplitBlock",
] as const;

/** geth's ChainConfig fields that schedule a fork by timestamp. */
export const TIME_FORK_FIELDS = [
  "shanghaiTime",
  "cancunTime",
  "pragueTime",
  "osakaTime",
  "bpo1Time",
  "bpo2Time",
  "bpo3Time",
  "bpo4Time",
  "bpo5Time",
  "amsterdamTime",
  "bogotaTime",
  "ubtTime",
] as const;

export type ForkId = { readonly hash: Uint8Array; readonly next: bigint };

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE), continuing from `crc` (0 to start), as Go's crc32.Update. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** A config value as a non-negative integer; anything else counts as unset (geth drops it). */
export function configNumber(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value >= 0n ? value : undefined;
  if (typeof value === "number")
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  if (typeof value === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return BigInt(value);
  return undefined;
}

const sortedUnique = (values: bigint[]) =>
  [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The forks that change the fork id, in order: block forks past block 0, then time forks after
 * the genesis timestamp (forks at genesis are its ruleset).
 */
export function gatherForks(
  config: Readonly<Record<string, unknown>>,
  genesisTime: bigint,
): { readonly byBlock: readonly bigint[]; readonly byTime: readonly bigint[] } {
  const pick = (fields: readonly string[]) =>
    fields.map((f) => configNumber(config[f])).filter((n): n is bigint => n !== undefined);
  return {
    byBlock: sortedUnique(pick(BLOCK_FORK_FIELDS)).filter((n) => n !== 0n),
    byTime: sortedUnique(pick(TIME_FORK_FIELDS)).filter((t) => t > genesisTime),
  };
}

function checksumUpdate(crc: number, fork: bigint): number {
  const blob = new Uint8Array(8);
  new DataView(blob.buffer).setBigUint64(0, fork);
  return crc32(blob, crc);
}

function checksumBytes(crc: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, crc);
  return out;
}

/** The fork id of a node whose head is block `head` at time `time` (geth forkid.NewID). */
export function forkId(
  config: Readonly<Record<string, unknown>>,
  genesis: { readonly hash: Uint8Array; readonly timestamp: bigint },
  head: bigint,
  time: bigint,
): ForkId {
  let crc = crc32(genesis.hash);
  const { byBlock, byTime } = gatherForks(config, genesis.timestamp);
  for (const fork of byBlock) {
    if (fork > head) return { hash: checksumBytes(crc), next: fork };
    crc = checksumUpdate(crc, fork);
  }
  for (const fork of byTime) {
    if (fork > time) return { hash: checksumBytes(crc), next: fork };
    crc = checksumUpdate(crc, fork);
  }
  return { hash: checksumBytes(crc), next: 0n };
}
