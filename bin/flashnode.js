#!/usr/bin/env node
// Runs dist/ (the JavaScript scripts/build.mjs compiles from src/ at `npm ci`, `npm start` and
// `npm test`) when it was built from the sources as they are; otherwise the TypeScript sources
// themselves, through tsx: slower to start, never stale. FLASHNODE_FROM_SOURCE=1 asks for the
// sources whatever dist/ holds.
import { upToDate } from "../scripts/build.mjs";

if (process.env.FLASHNODE_FROM_SOURCE !== "1" && upToDate()) {
  await import("../dist/flashnode.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
