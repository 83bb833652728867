// A WebSocket relay that plays a WAN between a flashblocks stream and its subscribers: it
// subscribes to `source` and hands every frame to each client connected to it `latencyMs`
// later, in the order it came (one queue, one delay), as text or binary as it came. It notes
// when each flashblock (by `block/index`) was handed on: the moment it arrives at a follower
// connected here (loopback), on the bench's clock.
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import { flashblockKey } from "./flashblockTap.ts";

export type WsRelay = {
  /** ws:// URL a follower subscribes to. */
  readonly url: string;
  /** When each flashblock was first handed to a client (performance.now()), by block/index. */
  readonly delivered: Map<string, number>;
  close(): Promise<void>;
};

type Frame = { readonly data: WebSocket.RawData; readonly binary: boolean; readonly due: number };

export async function startWsRelay(source: string, latencyMs: number): Promise<WsRelay> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((ok) => server.once("listening", ok));
  const delivered = new Map<string, number>();
  const queue: Frame[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.due <= now) {
      const f = queue.shift()!;
      let sent = false;
      for (const c of server.clients)
        if (c.readyState === WebSocket.OPEN) {
          c.send(f.data, { binary: f.binary });
          sent = true;
        }
      if (sent && !f.binary) note(f.data);
    }
    if (queue.length > 0) timer = setTimeout(flush, Math.max(0, queue[0]!.due - now));
  };
  const note = (data: WebSocket.RawData) => {
    const at = performance.now();
    try {
      const m = JSON.parse(data.toString()) as {
        index?: number;
        metadata?: { block_number?: number };
      };
      if (m.index === undefined || m.metadata?.block_number === undefined) return;
      const key = flashblockKey(m.metadata.block_number, m.index);
      if (!delivered.has(key)) delivered.set(key, at);
    } catch {
      // not JSON: handed on, not noted
    }
  };
  // The source drops a subscriber that falls behind (this process, busy on a loaded machine):
  // dialled again, as a follower's own stream would be.
  let closed = false;
  let upstream: WebSocket;
  const dial = () => {
    upstream = new WebSocket(source);
    upstream.on("message", (data, binary) => {
      queue.push({ data, binary, due: performance.now() + latencyMs });
      timer ??= setTimeout(flush, latencyMs);
    });
    upstream.on("error", () => undefined);
    upstream.once("close", () => {
      if (!closed) setTimeout(dial, 50);
    });
    return upstream;
  };
  const first = dial();
  await new Promise<void>((ok, fail) => {
    first.once("open", () => ok());
    first.once("error", (e) => {
      closed = true;
      fail(e);
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/flashblocks`,
    delivered,
    close() {
      closed = true;
      clearTimeout(timer);
      upstream.terminate();
      for (const c of server.clients) c.terminate();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}
