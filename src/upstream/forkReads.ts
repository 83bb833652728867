// One process's (or thread's) view of a fork's upstream: its client, state at F, history at or
// below F, and calls forwarded below F, all through the datadir's cache. The sequencer, every
// reader and every call worker open their own: the cache in the datadir is what they share.
import type { Logger } from "../log/logger.ts";
import type { UpstreamBlockHashes, UpstreamState } from "../services/upstreamState.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { keccak256 } from "../util/crypto.ts";
import { hexToBytes } from "../util/hex.ts";
import type { UpstreamHooks } from "./calls.ts";
import { UpstreamClient } from "./client.ts";
import { ForkCache, type ForkPoint } from "./forkCache.ts";
import { createForkState, DEFAULT_READ_DEADLINE_MS, type ForkState } from "./forkState.ts";
import { createForkHistory, type ForkHistory } from "./history.ts";
import type { UpstreamOptions } from "./options.ts";

export type ForkReadsOptions = {
  readonly upstream: UpstreamOptions;
  readonly point: ForkPoint;
  readonly logger?: Logger;
  /** One read's whole budget on the RPC path (a dead upstream fails a call within it). */
  readonly readDeadlineMs?: number;
  /** What the client reports its calls to (the process's upstream metrics). */
  readonly hooks?: UpstreamHooks;
};

export type ForkReads = {
  readonly point: ForkPoint;
  readonly client: UpstreamClient;
  readonly state: ForkState & UpstreamState;
  readonly history: ForkHistory;
  readonly hashes: UpstreamBlockHashes;
  /**
   * A call answered by the upstream as of a block at or below F, its block given by hash in
   * `params` (so the answer never changes): asked once, then served from the datadir.
   */
  forward(method: string, params: readonly unknown[]): Promise<unknown>;
  close(): void;
};

const utf8 = new TextEncoder();

export function openForkReads(env: KvEnv, o: ForkReadsOptions): ForkReads {
  const logger = o.logger;
  const client = new UpstreamClient(o.upstream, {
    ...(logger === undefined ? {} : { logger }),
    ...(o.hooks === undefined ? {} : { hooks: o.hooks }),
  });
  const readDeadlineMs =
    o.readDeadlineMs ?? Math.min(o.upstream.deadlineMs, DEFAULT_READ_DEADLINE_MS);
  const common = {
    client,
    env,
    fork: o.point,
    readDeadlineMs,
    ...(logger === undefined ? {} : { logger }),
  };
  const state = createForkState(common);
  const history = createForkHistory(common);
  const answers = new ForkCache(env, o.point, logger);
  return {
    point: o.point,
    client,
    state,
    history,
    hashes: {
      async canonicalHash(number) {
        const block = await history.blockByNumber(BigInt(number), false);
        return block === null ? undefined : hexToBytes(block.hash);
      },
    },
    async forward(method, params) {
      const key = keccak256(utf8.encode(`${method}\u0000${JSON.stringify(params)}`));
      const cached = answers.answer(key);
      if (cached !== undefined) return cached;
      const answer = await client.call(method, params, { deadlineMs: readDeadlineMs });
      answers.putAnswer(key, answer ?? null);
      return answer;
    },
    close: () => client.close(),
  };
}
