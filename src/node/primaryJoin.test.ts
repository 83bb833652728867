import assert from "node:assert/strict";
import { test } from "node:test";
import { flashblock } from "../../test/utils/flashblockDiffs.ts";
import type { ChainUpdate } from "../pending/types.ts";
import { joinPrimary, type PoolNonceMap } from "./primaryJoin.ts";
import type { JoinAnswer, ReaderLink } from "./readerLink.ts";
import type { NonceEntries } from "./readerProtocol.ts";
import { UpdateStream } from "./updateStream.ts";

type Link = Pick<ReaderLink, "join" | "onUpdates" | "onPoolNonces" | "applied">;

/**
 * A primary's side as a reader's IPC delivers it: `answer` hands over the join's answer and the
 * events the primary sent after it in one read, as Node does (each message's listener runs
 * before the continuation of the code awaiting the answer).
 */
function primary() {
  let updates: ((u: readonly ChainUpdate[], sentAt: number) => void) | undefined;
  let poolNonces: ((e: NonceEntries) => void) | undefined;
  let reply: ((a: JoinAnswer) => void) | undefined;
  let applied = 0;
  const link: Link = {
    join: () =>
      new Promise((resolve) => {
        reply = resolve;
      }),
    onUpdates: (l) => {
      updates = l;
    },
    onPoolNonces: (l) => {
      poolNonces = l;
    },
    applied: () => {
      applied++;
    },
  };
  /** Events, each a message: updates or pool nonces. */
  const send = (events: ReadonlyArray<readonly ChainUpdate[] | NonceEntries>) => {
    for (const e of events) {
      const first = e[0];
      if (first !== undefined && "kind" in first) updates!(e as readonly ChainUpdate[], 0);
      else poolNonces!(e as NonceEntries);
    }
  };
  return {
    link,
    applied: () => applied,
    send,
    answer(
      answer: Pick<JoinAnswer, "updates" | "poolNonces">,
      after: ReadonlyArray<readonly ChainUpdate[] | NonceEntries>,
    ) {
      reply!({ ...answer, health: { reasons: [] }, serves: NO_SERVICES });
      send(after);
    },
  };
}

const NO_SERVICES = { transactions: false, pool: false, control: false };

const label = (u: ChainUpdate) =>
  u.kind === "sealed" ? `seal ${u.number}` : `${u.base.number}.${u.index}`;

test("a reader joining just before a seal: the seal sent after the join's answer is not lost behind the block so far", async () => {
  const p = primary();
  const stream = new UpdateStream();
  const nonces: PoolNonceMap = new Map();
  const joining = joinPrimary(p.link, stream, nonces, () => {});
  await Promise.resolve();
  const seal: ChainUpdate = {
    kind: "sealed",
    number: 1,
    hash: new Uint8Array(32),
    next: flashblock(2, 0),
  };
  p.answer({ updates: [flashblock(1, 0), flashblock(1, 1)], poolNonces: [["aa", 3n]] }, [
    [seal],
    [["aa", 4n]],
    [flashblock(2, 1)],
  ]);
  await joining;
  // The reader's chain view starts from the stream's block: the seal, and what followed it.
  const seen: string[] = [];
  stream.subscribe((u) => seen.push(label(u)));
  assert.deepEqual(seen, ["seal 1", "2.1"]);
  assert.equal(nonces.get("aa"), 4n, "the nonce sent after the answer, not the answer's");
  assert.equal(p.applied(), 4, "the answer and each event acknowledged");
});

test("events after the join go to the stream as they come", async () => {
  const p = primary();
  const stream = new UpdateStream();
  const joining = joinPrimary(p.link, stream, new Map(), () => {});
  await Promise.resolve();
  p.answer({ updates: [flashblock(3, 0)], poolNonces: [] }, []);
  await joining;
  const seen: string[] = [];
  stream.subscribe((u) => seen.push(label(u)));
  p.send([[flashblock(3, 1)]]);
  assert.deepEqual(seen, ["3.0", "3.1"]);
});
