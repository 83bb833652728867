// A flashblocks stream written in the test: a real WebSocket server on 127.0.0.1 that sends
// what the test tells it to, in Base's wire format. (The stream client's deadlines and backoff
// are driven by test/utils/fakeClock.ts.)
import type { AddressInfo } from "node:net";
import type { WebSocket } from "ws";
import { WebSocketServer } from "ws";

const h32 = (b: string) => `0x${b.repeat(64)}`;

export type MessageOptions = {
  readonly payloadId?: string;
  /** Raw transactions (hex); default: one dummy per flashblock. */
  readonly transactions?: readonly string[];
  readonly parentHash?: string;
};

/** One flashblock in Base's JSON shape (index 0 with `base`). */
export function flashblockMessage(block: number, index: number, o: MessageOptions = {}): string {
  return JSON.stringify({
    payload_id: o.payloadId ?? "0x03c33cc62b81edb6",
    index,
    ...(index === 0
      ? {
          base: {
            parent_beacon_block_root: h32("1"),
            parent_hash: o.parentHash ?? h32("2"),
            fee_recipient: "0x4200000000000000000000000000000000000011",
            prev_randao: h32("3"),
            block_number: `0x${block.toString(16)}`,
            gas_limit: "0x3938700",
            timestamp: "0x690fdf84",
            extra_data: "0x",
            base_fee_per_gas: "0x34",
          },
        }
      : {}),
    diff: {
      state_root: h32("0"),
      receipts_root: h32("4"),
      logs_bloom: `0x${"00".repeat(256)}`,
      gas_used: "0x0",
      block_hash: h32("5"),
      transactions: o.transactions ?? [`0x7e${index.toString(16).padStart(2, "0")}`],
      withdrawals: [],
      withdrawals_root: h32("6"),
    },
    metadata: { block_number: block },
  });
}

export type FlashblockSource = {
  readonly wss: WebSocketServer;
  /** ws://127.0.0.1:<port>/ws */
  readonly url: string;
  /** The next accepted connection (each one once, in order). */
  connection(): Promise<WebSocket>;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
};

export type SourceOptions = {
  /** false: a peer that answers no pings. */
  readonly autoPong?: boolean;
  /** Asked at each upgrade; false refuses it with HTTP 503. */
  readonly accept?: () => boolean;
};

export async function startFlashblockSource(opts: SourceOptions = {}): Promise<FlashblockSource> {
  const accept = opts.accept;
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    autoPong: opts.autoPong ?? true,
    ...(accept === undefined ? {} : { verifyClient: (_info, cb) => cb(accept(), 503) }),
  });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const accepted: WebSocket[] = [];
  const waiting: ((ws: WebSocket) => void)[] = [];
  wss.on("connection", (ws) => {
    const w = waiting.shift();
    if (w === undefined) accepted.push(ws);
    else w(ws);
  });
  const { port } = wss.address() as AddressInfo;
  return {
    wss,
    url: `ws://127.0.0.1:${port}/ws`,
    connection: () => {
      const ws = accepted.shift();
      return ws !== undefined ? Promise.resolve(ws) : new Promise((r) => waiting.push(r));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
}
