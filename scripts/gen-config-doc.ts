// Writes docs/config.md from the option table (src/cli/optionTable.ts): run after changing options.
import { writeFileSync } from "node:fs";
import { configDoc } from "../src/cli/configDoc.ts";
import { OPTIONS } from "../src/cli/optionTable.ts";

writeFileSync(new URL("../docs/config.md", import.meta.url), configDoc());
console.log(`docs/config.md: ${OPTIONS.length} options`);
