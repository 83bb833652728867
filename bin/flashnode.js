#!/usr/bin/env node
import { readFileSync } from "node:fs";
// Runs dist/ (the JavaScript scripts/build.mjs compiles from src/ at `npm ci`, `npm start` and
// `npm test`) when it was built from the sources as they are; otherwise the TypeScript sources
// themselves, through tsx: slower to start, never stale.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fingerprint, sourceFiles } from "../scripts/sourceFingerprint.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

function built() {
  try {
    return (
      readFileSync(join(root, "dist/BUILD"), "utf8").trim() === fingerprint(src, sourceFiles(src))
    );
  } catch {
    return false;
  }
}

if (process.env.FLASHNODE_FROM_SOURCE !== "1" && built()) {
  await import("../dist/flashnode.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
