import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../log/logger.ts";
import { createFeedHub } from "./hub.ts";

test("a listener that throws is logged on the hub's logger, and the others still hear", () => {
  const lines: string[] = [];
  const hub = createFeedHub(createLogger("info", { write: (s: string) => void lines.push(s) }));
  const heard: number[] = [];
  hub.onNewHead(() => {
    throw new Error("listener broke");
  });
  hub.onNewHead((h) => heard.push(h.blockNumber));
  hub.emitNewHead({ blockNumber: 5, hash: "0x05", json: "{}" });
  assert.deepEqual(heard, [5]);
  assert.equal(lines.length, 1);
  const record = JSON.parse(lines[0]!) as {
    level: number;
    msg: string;
    event: string;
    err: { message: string };
  };
  assert.equal(record.level, 50);
  assert.equal(record.msg, "feed listener failed");
  assert.equal(record.event, "newHead");
  assert.equal(record.err.message, "listener broke");
});
