// ChainCommon against the library's Common: the same parameter values after any sequence of
// copies, merges (the libraries' tables, and tables that change values) and fork changes; and a
// transaction decoded without its copy of the Common rebuilding the parameter cache.
import assert from "node:assert/strict";
import { test } from "node:test";
import { paramsBlock } from "@ethereumjs/block";
import { type Common, createCommonFromGethGenesis, type ParamsDict } from "@ethereumjs/common";
import { paramsEVM } from "@ethereumjs/evm";
import { createTxFromRLP, paramsTx } from "@ethereumjs/tx";
import { paramsVM } from "@ethereumjs/vm";
import { createDevSigner } from "../exec/devSigner.ts";
import { ChainCommon } from "./chainCommon.ts";
import { devAccounts, devGenesis } from "./devGenesis.ts";
import { chainSpecFromGenesis } from "./genesis.ts";

const accounts = devAccounts(1);
const genesis = devGenesis({
  chainId: 31337n,
  fork: "osaka",
  accounts,
  balanceWei: 10n ** 20n,
  gasLimit: 30_000_000n,
  timestamp: 1n,
});

/** Every parameter the Common's cache answers now, as text. */
function values(c: Common): string {
  const cache = (c as unknown as { _paramsCache: Record<string, unknown> })._paramsCache;
  return JSON.stringify(Object.entries(cache).sort(([a], [b]) => (a < b ? -1 : 1)));
}

test("a ChainCommon answers every parameter as the library's Common does", async () => {
  const spec = await chainSpecFromGenesis(genesis);
  assert.ok(spec.common instanceof ChainCommon);
  const plain = createCommonFromGethGenesis(genesis as never, { chain: "flashnode" });
  const ours: Common[] = [spec.common.copy()];
  const theirs: Common[] = [plain];
  assert.equal(values(ours[0]!), values(theirs[0]!));
  // Two tables that disagree: merging one after the other changes values each time.
  const fast: ParamsDict = { 1559: { elasticityMultiplier: 4 } };
  const slow: ParamsDict = { 1559: { elasticityMultiplier: 6 } };
  const tables = [paramsTx, paramsBlock, paramsEVM, paramsVM, fast, slow];
  const forks = ["cancun", "prague", "osaka"];
  let seed = 5;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  for (let step = 0; step < 600; step++) {
    const i = rand(ours.length);
    const op = rand(10);
    if (op < 3) {
      ours.push(ours[i]!.copy());
      theirs.push(theirs[i]!.copy());
    } else if (op < 9) {
      const t = tables[rand(tables.length)]!;
      ours[i]!.updateParams(t);
      theirs[i]!.updateParams(t);
    } else {
      const fork = forks[rand(forks.length)]!;
      ours[i]!.setHardfork(fork);
      theirs[i]!.setHardfork(fork);
    }
    // The one changed (a copy: the new one), and every tenth step all of them.
    const check = step % 10 === 0 ? ours.keys() : [op < 3 ? ours.length - 1 : i];
    for (const k of check)
      assert.equal(values(ours[k]!), values(theirs[k]!), `step ${step}, Common ${k}`);
  }
});

test("decoding transactions does not rebuild the parameter cache for each", async () => {
  const spec = await chainSpecFromGenesis(genesis);
  const signer = createDevSigner(spec, accounts);
  const from = Buffer.from(accounts[0]!.address.slice(2), "hex");
  const raws = Array.from({ length: 20 }, (_, nonce) =>
    signer.signTransaction(
      from,
      {
        type: 2,
        chainId: 31337n,
        nonce: BigInt(nonce),
        gasLimit: 21_000n,
        to: new Uint8Array(20).fill(7),
        value: 1n,
        data: new Uint8Array(0),
        gasPrice: undefined,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        accessList: [],
        authorizationList: undefined,
      },
      { number: 1n, timestamp: 2n },
    ),
  );
  const common = spec.common.copy();
  const proto = Object.getPrototypeOf(ChainCommon.prototype) as { _buildParamsCache(): void };
  const build = proto._buildParamsCache;
  let rebuilds = 0;
  proto._buildParamsCache = function (this: unknown) {
    rebuilds++;
    build.call(this);
  };
  try {
    for (const raw of raws) createTxFromRLP(raw, { common }).hash();
  } finally {
    proto._buildParamsCache = build;
  }
  assert.ok(rebuilds <= 1, `${rebuilds} parameter caches built for ${raws.length} transactions`);
});
