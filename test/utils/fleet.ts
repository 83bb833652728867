// A fleet for end-to-end tests: followers of one `dev` sequencer publishing into one NATS stream
// (`flashnode follow --nats`), each a process started as users start them, so that a test can
// SIGKILL or SIGSTOP the one publishing; what each says of its role; the streams read back
// message by message, with the publisher each message names.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { decodeChainUpdate } from "../../src/replica/codec.ts";
import { PART_HEADER } from "../../src/replica/parts.ts";
import { HEADER, streamNames } from "../../src/replica/streams.ts";
import { bytesToHex } from "../../src/util/hex.ts";
import { pollUntil } from "./devChain.ts";
import { call } from "./fixtures.ts";
import { type RpcProcess, startCli } from "./processes.ts";

export const FLEET_KEY = "fleet-test-key-0001";

export type FleetFollower = RpcProcess & {
  /** Its publisher id (its banner's), the Flashnode-Publisher header of what it writes. */
  readonly id: string;
  readonly datadir: string;
};

/** `flashnode follow --nats` of the sequencer at `upstream` (its RPC and /flashblocks). */
export async function startFleetFollower(o: {
  readonly upstream: string;
  readonly upstreamWs: string;
  readonly nats: string;
  readonly prefix: string;
  readonly datadir: string;
  readonly lease?: string;
}): Promise<FleetFollower> {
  const node = await startCli([
    "follow",
    "--rpc",
    o.upstream,
    "--flashblocks",
    `${o.upstreamWs}flashblocks`,
    "--nats",
    o.nats,
    "--nats-prefix",
    o.prefix,
    "--nats-lease",
    o.lease ?? "1s",
    "--datadir",
    o.datadir,
    "--api-key",
    FLEET_KEY,
  ]);
  const id = /Publisher: +([^,\s]+),/.exec(node.output())?.[1];
  if (id === undefined) throw new Error(`no publisher id in the banner:\n${node.output()}`);
  return { ...node, id, datadir: o.datadir };
}

/** What /readyz says of a follower's role ("leader" or "standby"), or undefined if it does not answer. */
export async function roleOf(node: RpcProcess): Promise<string | undefined> {
  try {
    const res = await fetch(`${node.url}readyz`, { signal: AbortSignal.timeout(1_000) });
    return ((await res.json()) as { publisher?: string }).publisher;
  } catch {
    return undefined;
  }
}

export async function waitForRole(node: RpcProcess, role: string, ms = 30_000): Promise<void> {
  await pollUntil(
    () => roleOf(node),
    (r) => r === role,
    ms,
    20,
  );
}

export async function headOf(url: string): Promise<number> {
  return Number(await call(url, "eth_blockNumber"));
}

/** One message of a stream, as the tests look at it. */
export type StreamMessage = {
  readonly seq: number;
  readonly publisher: string | undefined;
  readonly block: number | undefined;
  readonly position: number | undefined;
  readonly revert: boolean;
  readonly part: string | undefined;
  readonly data: Uint8Array;
  readonly format: string | undefined;
};

/** Every message both streams of `prefix` hold, in order. */
export async function readStreams(
  natsUrl: string,
  prefix: string,
): Promise<{ blocks: StreamMessage[]; flashblocks: StreamMessage[] }> {
  const nc = await connect({ servers: [natsUrl] });
  try {
    const jsm = await jetstreamManager(nc);
    const names = streamNames(prefix);
    const read = async (stream: string): Promise<StreamMessage[]> => {
      const info = await jsm.streams.info(stream);
      const out: StreamMessage[] = [];
      if (info.state.messages === 0) return out;
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage(stream, { seq });
        if (m === null || m === undefined) continue;
        const block = m.header.get(HEADER.block);
        const position = m.header.get("Flashnode-Position");
        out.push({
          seq,
          publisher: m.header.get(HEADER.publisher) || undefined,
          block: block === "" ? undefined : Number(block),
          position: position === "" ? undefined : Number(position),
          revert: m.header.get("Flashnode-Revert") === "1",
          part: m.header.get(PART_HEADER) || undefined,
          data: m.data,
          format: m.header.get(HEADER.format) || undefined,
        });
      }
      return out;
    };
    return { blocks: await read(names.blocks), flashblocks: await read(names.flashblocks) };
  } finally {
    await nc.close();
  }
}

/**
 * The transactions the flashblock stream pre-confirmed for each block, in order (from its
 * flashblocks and the flashblock 0 each seal carries).
 */
export function preconfirmedByBlock(flashblocks: readonly StreamMessage[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const m of flashblocks) {
    if (m.part !== undefined) throw new Error("a flashblock update in parts: not expected here");
    const u = decodeChainUpdate(m.data, m.format);
    const fb = u.kind === "sealed" ? u.next : u;
    const list = out.get(fb.base.number) ?? [];
    // A flashblock 0 starts the block over (a follower that reopened it).
    if (fb.index === 0) list.length = 0;
    list.push(...fb.transactions.map((t) => bytesToHex(t.hash)));
    out.set(fb.base.number, list);
  }
  return out;
}
