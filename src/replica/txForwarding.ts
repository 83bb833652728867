// A replica's transactions go to the sequencer over NATS request/reply and come back with the
// sequencer's own answer: the hash, or the JSON-RPC error (code, message, data) as it gave it.
import { headers, type Msg, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../log/logger.ts";
import { RpcError, ServerError } from "../services/errors.ts";
import type { StreamNames } from "./streams.ts";

/** What the sequencer does with a forwarded request. */
export type TransactionTarget = {
  submit(raw: Uint8Array): Promise<{ hash: string }>;
  mine(): Promise<number>;
};

type Reply =
  | { readonly hash: string }
  | { readonly number: number }
  | { readonly error: { code: number; message: string; data?: unknown } };

const OP_HEADER = "Flashnode-Op";
const FORWARD_TIMEOUT_MS = 10_000;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** The sequencer's responder; returns a function that stops it. */
export function answerTransactions(
  nc: NatsConnection,
  names: StreamNames,
  target: TransactionTarget,
  log: Logger,
): () => void {
  const respond = (msg: Msg, reply: Reply) => msg.respond(utf8.encode(JSON.stringify(reply)));
  const sub = nc.subscribe(names.txSubject, {
    queue: "flashnode-sequencer",
    callback: (err, msg) => {
      if (err !== null) return;
      const mine = msg.headers?.get(OP_HEADER) === "mine";
      const work: Promise<Reply> = mine
        ? target.mine().then((number) => ({ number }))
        : target.submit(msg.data).then((r) => ({ hash: r.hash }));
      work.then(
        (reply) => respond(msg, reply),
        (e: unknown) => {
          const error =
            e instanceof RpcError
              ? {
                  code: e.rpcCode,
                  message: e.message,
                  ...(e.data === undefined ? {} : { data: e.data }),
                }
              : { code: -32000, message: e instanceof Error ? e.message : String(e) };
          if (!(e instanceof RpcError)) log.warn({ err: e }, "forwarded transaction failed");
          respond(msg, { error });
        },
      );
    },
  });
  return () => sub.unsubscribe();
}

async function forward(
  nc: NatsConnection | undefined,
  names: StreamNames,
  data: Uint8Array,
  op: string,
) {
  if (nc === undefined) throw new ServerError("the sequencer is not reachable (NATS is down)");
  let reply: Reply;
  try {
    const h = headers();
    h.set(OP_HEADER, op);
    const msg = await nc.request(names.txSubject, data, {
      timeout: FORWARD_TIMEOUT_MS,
      headers: h,
    });
    reply = JSON.parse(utf8Decoder.decode(msg.data)) as Reply;
  } catch (e) {
    throw new ServerError(
      `the sequencer did not answer: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if ("error" in reply) throw new RpcError(reply.error.code, reply.error.message, reply.error.data);
  return reply;
}

/** A replica's transaction intake: the sequencer's answers, through NATS. */
export function forwardingTarget(
  connection: () => NatsConnection | undefined,
  names: StreamNames,
): TransactionTarget {
  return {
    async submit(raw) {
      const reply = await forward(connection(), names, raw, "submit");
      if (!("hash" in reply)) throw new ServerError("unexpected answer from the sequencer");
      return { hash: reply.hash };
    },
    async mine() {
      const reply = await forward(connection(), names, new Uint8Array(0), "mine");
      if (!("number" in reply)) throw new ServerError("unexpected answer from the sequencer");
      return reply.number;
    },
  };
}
