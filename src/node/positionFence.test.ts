import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PositionFence } from "./positionFence.ts";

test("a reader's fence sees the writer's newest position, from another handle", () => {
  const dir = mkdtempSync(join(tmpdir(), "fence-"));
  try {
    const writer = PositionFence.create(dir);
    const reader = PositionFence.open(dir);
    assert.equal(reader.read(), 0);
    writer.write(5 * 1024 + 3);
    assert.equal(reader.read(), 5 * 1024 + 3);
    writer.write(6 * 1024);
    assert.equal(reader.read(), 6 * 1024);
    // A new writer (a restarted node) starts over.
    const again = PositionFence.create(dir);
    assert.equal(reader.read(), 0);
    for (const f of [writer, reader, again]) f.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
