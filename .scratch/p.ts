import { createBlockHeader } from "@ethereumjs/block";
import { chainSpecFromGenesis } from "../src/chain/genesis.ts";
import { devGenesis } from "../src/chain/devGenesis.ts";
const g = devGenesis({chainId: 8453n, fork: "osaka", accounts: [], balanceWei: 0n, gasLimit: 30_000_000n, timestamp: 0n, op: {}}) as any;
for (const [e, d] of [[2, 8], [6, 250]]) {
  g.config.optimism = { eip1559Elasticity: e, eip1559Denominator: 50, eip1559DenominatorCanyon: d };
  const spec = await chainSpecFromGenesis(g);
  const h = createBlockHeader({ number: 5n, gasLimit: 30_000_000n, gasUsed: 30_000_000n, baseFeePerGas: 1_000_000_000n, timestamp: 10n }, { common: spec.common, setHardfork: true });
  console.log(e, d, h.calcNextBaseFee());
}
