import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger, forwardingLogger, readableLine } from "./logger.ts";

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

test("a forwarding logger hands each record's level, message and fields on, at its level", () => {
  const got: Array<[string, string, Record<string, unknown>]> = [];
  const logger = forwardingLogger("info", (level, msg, fields) => got.push([level, msg, fields]));
  logger.child({ module: "nats" }).warn({ block: 7 }, "NATS publishing failed");
  logger.debug("not at info");
  logger.error({ err: new Error("boom") }, "failed");
  assert.equal(got.length, 2);
  assert.deepEqual(got[0], ["warn", "NATS publishing failed", { module: "nats", block: 7 }]);
  const [level, msg, fields] = got[1]!;
  assert.equal(level, "error");
  assert.equal(msg, "failed");
  assert.equal((fields.err as { message: string }).message, "boom");
});
