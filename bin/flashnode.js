#!/usr/bin/env node
// Runs dist/ (the JavaScript scripts/build.mjs compiles from src/ at `npm ci`) when it was built
// from the sources as they are. Otherwise `npm start` (FLASHNODE_BUILD_IF_STALE=1) rebuilds it
// first, and any other start runs the TypeScript sources themselves through tsx: slower to start,
// never stale (several starts at once, as tests make, never build side by side).
// FLASHNODE_FROM_SOURCE=1 asks for the sources whatever dist/ holds.
import { build, upToDate } from "../scripts/build.mjs";

async function compiled() {
  if (process.env.FLASHNODE_FROM_SOURCE === "1") return false;
  if (upToDate()) return true;
  if (process.env.FLASHNODE_BUILD_IF_STALE !== "1") return false;
  try {
    await build({ quiet: true });
    return true;
  } catch {
    return false; // a read-only checkout, say: the sources still run
  }
}

if (await compiled()) {
  await import("../dist/flashnode.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
