// Sends any case over its transport.
import type { FuzzCase } from "./cases/types.ts";
import type { Outcome } from "./checks.ts";
import { runHttp } from "./httpSender.ts";
import { runRaw } from "./rawSender.ts";
import type { Target } from "./target.ts";
import { runWs } from "./wsSender.ts";

export function runCase(target: Target, c: FuzzCase): Promise<Outcome> {
  if (c.transport === "http") return runHttp(target, c);
  if (c.transport === "raw") return runRaw(target, c);
  return runWs(target, c);
}
