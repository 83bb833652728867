// Regenerates src/chain/op/contracts/contracts.json from the .sol sources beside it:
//   node --import tsx scripts/op-contracts.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileContracts } from "../src/chain/op/contracts/compile.ts";

const out = join(process.cwd(), "src/chain/op/contracts/contracts.json");
writeFileSync(out, `${JSON.stringify(compileContracts(), null, 2)}\n`);
console.log(`wrote ${out}`);
