import assert from "node:assert/strict";
import { test } from "node:test";
import type { NatsContext, NatsLink } from "./natsLink.ts";
import { watchForStall } from "./stallWatchdog.ts";

// The watchdog only asks the link for its current context; the context itself is opaque to it.
const linkWith = (connected: boolean): NatsLink =>
  ({ current: () => (connected ? ({} as NatsContext) : undefined) }) as unknown as NatsLink;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function restartsWhen(
  behind: () => Promise<boolean>,
  opts: { connected?: boolean; keepSeeing?: boolean } = {},
): Promise<number> {
  let restarts = 0;
  const w = watchForStall({
    link: linkWith(opts.connected ?? true),
    stallMs: 20,
    behind,
    restart: () => restarts++,
  });
  const seeing = opts.keepSeeing ? setInterval(() => w.seen(), 5) : undefined;
  await sleep(150);
  if (seeing !== undefined) clearInterval(seeing);
  w.stop();
  return restarts;
}

test("a silent consumer is restarted when the stream has moved on", async () => {
  assert.ok((await restartsWhen(async () => true)) >= 1);
});

test("a silent consumer is left alone when the stream has nothing newer", async () => {
  assert.equal(await restartsWhen(async () => false), 0);
});

test("a silent consumer is restarted when the stream cannot say where it ends", async () => {
  assert.ok((await restartsWhen(async () => Promise.reject(new Error("timeout")))) >= 1);
});

test("a consumer that keeps delivering is never restarted", async () => {
  assert.equal(await restartsWhen(async () => true, { keepSeeing: true }), 0);
});

test("nothing is restarted while disconnected (the reconnection restarts it)", async () => {
  assert.equal(await restartsWhen(async () => true, { connected: false }), 0);
});
