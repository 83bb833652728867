// Compiles the dev chain's own predeploy sources (src/chain/op/contracts/*.sol) with solc-js
// 0.8.15 (a dev dependency). `scripts/op-contracts.ts` writes the result to contracts.json,
// which the node reads; contracts.test.ts checks the committed bytecode is this compilation's.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CONTRACT_SOURCES = ["GasPriceOracleProxy"] as const;
export type CompiledContracts = Record<(typeof CONTRACT_SOURCES)[number], { runtime: string }>;

type Solc = { compile(input: string): string };

export function compileContracts(): CompiledContracts {
  const require = createRequire(import.meta.url);
  const solc = require("solc") as Solc;
  const dir = dirname(fileURLToPath(import.meta.url));
  const sources: Record<string, { content: string }> = {};
  for (const name of CONTRACT_SOURCES)
    sources[`${name}.sol`] = { content: readFileSync(join(dir, `${name}.sol`), "utf8") };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources,
        settings: {
          optimizer: { enabled: true, runs: 999999 },
          evmVersion: "london",
          metadata: { bytecodeHash: "none" },
          outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } },
        },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const out = {} as CompiledContracts;
  for (const name of CONTRACT_SOURCES) {
    const object = output.contracts[`${name}.sol`]?.[name]?.evm.deployedBytecode.object;
    if (object === undefined) throw new Error(`solc produced no ${name}`);
    out[name] = { runtime: `0x${object}` };
  }
  return out;
}
