import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SendSocket } from "./outbox.ts";
import { Outbox } from "./outbox.ts";

/** A socket whose writes complete only when `flush()` is called. */
function fakeSocket() {
  const callbacks: (() => void)[] = [];
  const sent: (string | Buffer)[] = [];
  const state = { bufferedAmount: 0, terminated: 0 };
  const socket: SendSocket = {
    get bufferedAmount() {
      return state.bufferedAmount;
    },
    send(data, _options, cb) {
      sent.push(data);
      state.bufferedAmount += data.length;
      callbacks.push(() => {
        state.bufferedAmount -= data.length;
        cb();
      });
    },
    terminate() {
      state.terminated++;
    },
  };
  return {
    socket,
    sent,
    state,
    flush() {
      for (const cb of callbacks.splice(0)) cb();
    },
  };
}

describe("outbox (bounded per-client sending)", () => {
  it("sends while under both limits, counting unflushed messages", () => {
    const f = fakeSocket();
    const out = new Outbox(f.socket, { maxBufferedBytes: 100, maxQueuedMessages: 3 });
    assert.equal(out.send("a"), true);
    assert.equal(out.send("b"), true);
    assert.equal(out.queued, 2);
    f.flush();
    assert.equal(out.queued, 0);
    assert.deepEqual(f.sent, ["a", "b"]);
    assert.equal(f.state.terminated, 0);
  });

  it("drops a client with too many queued messages", () => {
    const f = fakeSocket();
    let drops = 0;
    const out = new Outbox(f.socket, { maxBufferedBytes: 1000, maxQueuedMessages: 2 }, () => {
      drops++;
    });
    out.send("a");
    out.send("b");
    assert.equal(out.send("c"), false);
    assert.equal(out.dropped, true);
    assert.equal(f.state.terminated, 1);
    assert.equal(drops, 1);
    // Once dropped, nothing more is sent or terminated again.
    assert.equal(out.send("d"), false);
    assert.equal(f.state.terminated, 1);
    assert.deepEqual(f.sent, ["a", "b"]);
  });

  it("drops a client whose buffered bytes exceed the limit", () => {
    const f = fakeSocket();
    const out = new Outbox(f.socket, { maxBufferedBytes: 10, maxQueuedMessages: 100 });
    // One message may take the buffer over the limit; the next send finds it there.
    assert.equal(out.send("x".repeat(50)), true);
    assert.equal(out.send("y"), false);
    assert.equal(f.state.terminated, 1);
  });

  it("keeps a client that drains in time", () => {
    const f = fakeSocket();
    const out = new Outbox(f.socket, { maxBufferedBytes: 10, maxQueuedMessages: 2 });
    for (let i = 0; i < 100; i++) {
      assert.equal(out.send("0123456789ab"), true);
      f.flush();
    }
    assert.equal(f.state.terminated, 0);
  });
});
