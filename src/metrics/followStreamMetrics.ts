// A follower's flashblocks stream as Prometheus series (flashnode_follow_stream_*): whether it is
// connected, its connects and disconnects (by why), the frames it received, and how long ago
// the last one came. The figures are the follower thread's, relayed with its health to every
// RPC process; each process reports the same ones, so a node of several sums them as their max.
import { Counter, Gauge, type Registry } from "prom-client";

/** Why a connection ended (the stream client's kinds); each has a series from the start. */
export const STREAM_DISCONNECT_REASONS = [
  "connect-failed",
  "remote-close",
  "error",
  "read-timeout",
  "pong-timeout",
] as const;

/** The stream's figures so far, as the follower reports them. */
export type FollowStreamFigures = {
  readonly connected: boolean;
  /** Connections opened. */
  readonly connects: number;
  /** Dials after the first. */
  readonly reconnects: number;
  /** Connections (or dials) that ended, by reason. */
  readonly disconnects: Readonly<Record<string, number>>;
  /** Data frames received, valid or not. */
  readonly frames: number;
  /** Frames that were flashblocks. */
  readonly flashblocks: number;
  /** Frames skipped: not decodable, or not a flashblock. */
  readonly invalidFrames: number;
  /** Decoded JSON bytes. */
  readonly bytes: number;
  /** When the last data frame came (epoch ms); undefined: none yet. */
  readonly lastFrameAt: number | undefined;
};

/** Registers the series; `read` is asked at each scrape (undefined: no figures yet). */
export function registerFollowStreamMetrics(
  registry: Registry,
  read: () => FollowStreamFigures | undefined,
): void {
  const counter = (name: string, help: string, value: (f: FollowStreamFigures) => number) => {
    let seen = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      aggregator: "max",
      collect() {
        const f = read();
        if (f === undefined) return;
        const total = value(f);
        if (total > seen) this.inc(total - seen);
        seen = total;
      },
    });
  };
  new Gauge({
    name: "flashnode_follow_stream_connected",
    help: "Whether the follower's flashblocks stream is connected (1) or not (0)",
    registers: [registry],
    aggregator: "max",
    collect() {
      this.set(read()?.connected === true ? 1 : 0);
    },
  });
  counter(
    "flashnode_follow_stream_connects_total",
    "Flashblocks stream connections opened",
    (f) => f.connects,
  );
  counter(
    "flashnode_follow_stream_reconnects_total",
    "Flashblocks stream dials after the first",
    (f) => f.reconnects,
  );
  counter(
    "flashnode_follow_stream_frames_total",
    "Data frames received on the flashblocks stream, valid or not",
    (f) => f.frames,
  );
  counter(
    "flashnode_follow_stream_flashblocks_total",
    "Frames of the flashblocks stream that were flashblocks",
    (f) => f.flashblocks,
  );
  counter(
    "flashnode_follow_stream_invalid_frames_total",
    "Frames of the flashblocks stream skipped: not decodable, or not a flashblock",
    (f) => f.invalidFrames,
  );
  counter(
    "flashnode_follow_stream_decoded_bytes_total",
    "Bytes of JSON decoded from the flashblocks stream",
    (f) => f.bytes,
  );
  const disconnectsSeen = new Map<string, number>();
  new Counter({
    name: "flashnode_follow_stream_disconnects_total",
    help: "Flashblocks stream connections, or dials, that ended, by reason: connect-failed, remote-close, error, read-timeout (no frame within --flashblocks-read-timeout), pong-timeout",
    labelNames: ["reason"],
    registers: [registry],
    aggregator: "max",
    collect() {
      const by = read()?.disconnects ?? {};
      for (const reason of new Set([...STREAM_DISCONNECT_REASONS, ...Object.keys(by)])) {
        const total = by[reason] ?? 0;
        const before = disconnectsSeen.get(reason) ?? 0;
        this.inc({ reason }, Math.max(0, total - before));
        disconnectsSeen.set(reason, Math.max(total, before));
      }
    },
  });
  new Gauge({
    name: "flashnode_follow_stream_last_frame_age_seconds",
    help: "Seconds since the flashblocks stream's last data frame (to within half a second; -1: none yet)",
    registers: [registry],
    aggregator: "min",
    collect() {
      const at = read()?.lastFrameAt;
      this.set(
        at === undefined ? -1 : Math.max(0, performance.timeOrigin + performance.now() - at) / 1000,
      );
    },
  });
}
