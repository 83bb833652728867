// The length of a FastLZ (level 1) compression of `input`, without producing it: the estimate of
// a transaction's compressed size that Fjord's L1 fee is based on. It must agree bit for bit with
// op-geth's FlzCompressLen and with the GasPriceOracle's Solidity version (LibZip.flzCompress),
// which the unit test checks by running the predeploy's own bytecode.

const HASH_BITS = 13;
const HASH_SIZE = 1 << HASH_BITS;

/** The hash table of positions, cleared for each input: one per thread, not 32 KiB a transaction. */
const table = new Uint32Array(HASH_SIZE);

export function flzCompressLen(input: Uint8Array): number {
  let n = 0;
  table.fill(0);
  const u24 = (i: number) => input[i]! | (input[i + 1]! << 8) | (input[i + 2]! << 16);
  const hash = (v: number) => (Math.imul(2654435769 | 0, v) >>> 19) & (HASH_SIZE - 1);
  // Length of the common run of p… and q… before `end`, plus one when it stops on a mismatch
  // (the reference implementation's loop counts the mismatching byte too).
  const matchLength = (p: number, q: number, end: number) => {
    let l = 0;
    let e = end - q;
    for (; l < e; l++) if (input[p + l] !== input[q + l]) e = 0;
    return l;
  };
  const literals = (r: number) => {
    n += 0x21 * Math.floor(r / 0x20);
    r %= 0x20;
    if (r !== 0) n += r + 1;
  };
  const match = (l: number) => {
    l--;
    n += 3 * Math.floor(l / 262);
    n += l % 262 >= 6 ? 3 : 2;
  };
  const setNextHash = (ip: number) => {
    table[hash(u24(ip))] = ip;
    return ip + 1;
  };
  let anchor = 0;
  const ipLimit = input.length < 13 ? 0 : input.length - 13;
  for (let ip = anchor + 2; ip < ipLimit; ) {
    let r = 0;
    let d = 0;
    for (;;) {
      const s = u24(ip);
      const h = hash(s);
      r = table[h]!;
      table[h] = ip;
      d = ip - r;
      if (ip >= ipLimit) break;
      ip++;
      if (d <= 0x1fff && s === u24(r)) break;
    }
    if (ip >= ipLimit) break;
    ip--;
    if (ip > anchor) literals(ip - anchor);
    const l = matchLength(r + 3, ip + 3, ipLimit + 9);
    match(l);
    ip = setNextHash(setNextHash(ip + l));
    anchor = ip;
  }
  literals(input.length - anchor);
  return n;
}
