// A subscriber to a node's /flashblocks stream (Base's JSON wire format) that notes when each
// flashblock arrived here, by block and index, and how many transactions it carried. Two taps
// in one process (the sequencer's stream and a follower's) share one clock, so the difference of
// their arrival times is how much later the follower showed a flashblock.
import WebSocket from "ws";

export type Arrival = {
  readonly at: number;
  readonly transactions: number;
  /** The message as sent, when the tap keeps them (a replica's, compared with its source's). */
  readonly text?: string;
};

export type FlashblockTap = {
  /** First arrival of each flashblock, keyed `block/index` (later copies are ignored). */
  readonly arrivals: Map<string, Arrival>;
  /** Calls `fn` with the arrival time of each new flashblock; returns the unsubscribe. */
  onArrival(fn: (at: number) => void): () => void;
  close(): void;
};

type WireMessage = {
  index?: number;
  diff?: { transactions?: unknown[] };
  metadata?: { block_number?: number };
};

export const flashblockKey = (block: number, index: number) => `${block}/${index}`;

export function tapFlashblocks(url: string, keepText = false): Promise<FlashblockTap> {
  const arrivals = new Map<string, Arrival>();
  const listeners = new Set<(at: number) => void>();
  let closed = false;
  let ws: WebSocket;
  const onMessage = (data: Buffer) => {
    // The time first: parsing is the same work for both taps, but it should not count.
    const at = performance.now();
    const text = data.toString("utf8");
    const m = JSON.parse(text) as WireMessage;
    if (m.index === undefined || m.metadata?.block_number === undefined) return;
    const key = flashblockKey(m.metadata.block_number, m.index);
    if (arrivals.has(key)) return;
    arrivals.set(key, {
      at,
      transactions: m.diff?.transactions?.length ?? 0,
      ...(keepText ? { text } : {}),
    });
    for (const fn of listeners) fn(at);
  };
  // A node drops a subscriber that falls behind (a bench process busy signing its load on a
  // loaded machine): dialled again, so the tap does not go silent for the rest of the run.
  const dial = () => {
    ws = new WebSocket(url);
    ws.on("message", onMessage);
    ws.on("error", () => undefined);
    ws.once("close", () => {
      if (!closed) setTimeout(dial, 50);
    });
    return ws;
  };
  const first = dial();
  return new Promise((ok, fail) => {
    first.once("open", () =>
      ok({
        arrivals,
        onArrival(fn) {
          listeners.add(fn);
          return () => listeners.delete(fn);
        },
        close: () => {
          closed = true;
          ws.terminate();
        },
      }),
    );
    first.once("error", (e) => {
      closed = true;
      fail(e);
    });
  });
}
