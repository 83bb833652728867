import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger, readableLine } from "./logger.ts";

test("a record as a readable terminal line: time, level, module, message, fields", () => {
  const lines: string[] = [];
  const logger = createLogger("info", { write: (s: string) => void lines.push(s) });
  logger
    .child({ module: "pending" })
    .info({ hash: "0xab", gasUsed: 21000, tiers: { public: "/" } }, "transaction pre-confirmed");
  const line = readableLine(lines[0]!);
  assert.match(
    line,
    /^\d\d:\d\d:\d\d\.\d{3} INFO {2}pending transaction pre-confirmed hash=0xab gasUsed=21000 tiers=\{"public":"\/"\}\n$/,
  );
  logger.error({ err: new Error("boom") }, "failed");
  assert.match(readableLine(lines[1]!), /^\S+ ERROR failed\nError: boom\n {4}at /);
});
