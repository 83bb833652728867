// WebSocket cases: `ws-rpc` sessions with the ws client, `ws-raw` handshakes and broken frames on
// a raw socket, and `ws-stream` listeners on /flashblocks.
import { isUtf8 } from "node:buffer";
import { batchItem } from "./batch.ts";
import { envelope } from "./calls.ts";
import { type Json, toJson } from "./json.ts";
import { INVALID_UTF8, malformed } from "./malformedJson.ts";
import { httpRequestBytes } from "./requests.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv, RawCase, WsCase, WsFrame } from "./types.ts";
import { address, hash, junkValue } from "./values.ts";
import { wrongEnvelope } from "./wrongTypes.ts";

export function wsRpc(rng: Rng, env: CaseEnv, index: number): WsCase {
  const path = env.dedicatedPath !== undefined && rng.chance(0.5) ? env.dedicatedPath : "/";
  const n = rng.range(1, 20);
  const frames: WsFrame[] = [];
  let utf8Broken = false;
  for (let i = 0; i < n; i++) {
    const f = rng.weighted<() => WsFrame>([
      [6, () => ({ data: Buffer.from(toJson(envelope(rng, env, rng.int(1000)))), binary: false })],
      [3, () => ({ data: malformed(rng, env)[1], binary: false })],
      [2, () => ({ data: Buffer.from(toJson(wrongEnvelope(rng, env)[1])), binary: false })],
      [
        1,
        () => ({
          data: Buffer.from(
            toJson(Array.from({ length: rng.range(0, 20) }, () => batchItem(rng, env))),
          ),
          binary: false,
        }),
      ],
      [
        2,
        () => ({
          data: Buffer.from(
            toJson({
              jsonrpc: "2.0",
              id: rng.int(1000),
              method: rng.pick(["eth_subscribe", "eth_unsubscribe"]),
              params: rng.pick<Json>([
                ["newHeads"],
                ["newFlashblocks"],
                ["logs", { address: address(rng, env), topics: [[hash(rng)], null] }],
                ["logs", junkValue(rng)],
                ["newPendingTransactions"],
                ["bogus"],
                [],
                [junkValue(rng)],
                [`0x${rng.hex(16)}`],
              ]),
            }),
          ),
          binary: false,
        }),
      ],
      [1, () => ({ data: Buffer.from(toJson(envelope(rng, env, 1))), binary: true })],
      [1, () => ({ data: rng.bytes(rng.range(0, 500)), binary: true })],
      [1, () => ({ data: Buffer.from(rng.pick(["", " ", "null", "[]", "{}"])), binary: false })],
      [
        0.5,
        () => {
          utf8Broken = true;
          return {
            data: Buffer.concat([
              Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_'),
              Buffer.from(rng.pick(INVALID_UTF8)),
              Buffer.from('"}'),
            ]),
            binary: false,
          };
        },
      ],
      [
        0.3,
        () => ({
          data: Buffer.from(
            `[${'{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},'.repeat(rng.range(1000, 30_000))}1]`,
          ),
          binary: false,
        }),
      ],
    ])();
    // A text frame that is not UTF-8 makes the server close the socket (1007), as it should.
    if (!f.binary && !isUtf8(f.data)) utf8Broken = true;
    frames.push(f);
  }
  return {
    index,
    kind: "ws-rpc",
    variant: utf8Broken ? "invalid-utf8" : path === "/" ? "public" : "dedicated",
    transport: "ws",
    path,
    stream: false,
    frames,
    sentinel: true,
    listenMs: rng.range(50, 400),
  };
}

function wsFrame(
  opcode: number,
  payload: Buffer,
  opts: { mask?: boolean; fin?: boolean; rsv?: number; len?: bigint } = {},
): Buffer {
  const mask = opts.mask ?? true;
  const b0 = ((opts.fin ?? true) ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | (opcode & 0x0f);
  const len = opts.len ?? BigInt(payload.length);
  let head: Buffer;
  if (len < 126n) head = Buffer.from([b0, (mask ? 0x80 : 0) | Number(len)]);
  else if (len < 65_536n) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = (mask ? 0x80 : 0) | 126;
    head.writeUInt16BE(Number(len), 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = (mask ? 0x80 : 0) | 127;
    head.writeBigUInt64BE(len, 2);
  }
  if (!mask) return Buffer.concat([head, payload]);
  const key = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const body = Buffer.from(payload.map((b, i) => b ^ key[i % 4]!));
  return Buffer.concat([head, key, body]);
}

export function wsRaw(rng: Rng, env: CaseEnv, index: number): RawCase {
  const path = rng.pick([
    "/",
    "/flashblocks",
    ...(env.dedicatedPath === undefined ? [] : [env.dedicatedPath]),
  ]);
  const key = rng.bytes(16).toString("base64");
  const handshakeVariant = rng.weighted<string>([
    [8, "ok"],
    [1, "no-key"],
    [1, "bad-version"],
    [1, "bad-key"],
    [1, "not-get"],
  ]);
  const headers: Record<string, string> = {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": key,
  };
  if (handshakeVariant === "no-key") delete headers["Sec-WebSocket-Key"];
  if (handshakeVariant === "bad-version")
    headers["Sec-WebSocket-Version"] = rng.pick(["7", "0", "abc", "14"]);
  if (handshakeVariant === "bad-key")
    headers["Sec-WebSocket-Key"] = rng.pick(["x", "", "!!!!", rng.bytes(10).toString("base64")]);
  const method = handshakeVariant === "not-get" ? "POST" : "GET";
  const hs = httpRequestBytes(method, path, headers, Buffer.alloc(0));
  const garbageVariant = rng.pick([
    "random",
    "unmasked",
    "rsv-bits",
    "bad-opcode",
    "big-control",
    "huge-length",
    "bad-close",
    "orphan-continuation",
    "fragmented-control",
    "oversized-stream",
  ]);
  const text = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
  const garbage = (() => {
    switch (garbageVariant) {
      case "random":
        return rng.bytes(rng.range(1, 500));
      case "unmasked":
        return wsFrame(1, text, { mask: false });
      case "rsv-bits":
        return wsFrame(1, text, { rsv: rng.range(1, 7) });
      case "bad-opcode":
        return wsFrame(rng.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xf]), text);
      case "big-control":
        return wsFrame(9, rng.bytes(rng.range(126, 300)));
      case "huge-length":
        return Buffer.concat([
          wsFrame(1, Buffer.alloc(0), { len: rng.pick([2n ** 63n - 1n, 2n ** 40n, 40_000_000n]) }),
          rng.bytes(100),
        ]);
      case "bad-close":
        return wsFrame(
          8,
          Buffer.concat([Buffer.from([rng.int(256), rng.int(256)]), rng.bytes(rng.range(0, 20))]),
        );
      case "orphan-continuation":
        return wsFrame(0, text);
      case "fragmented-control":
        return wsFrame(9, Buffer.from("ping"), { fin: false });
      default:
        return wsFrame(rng.pick([1, 2]), rng.bytes(70_000));
    }
  })();
  const upgradeOk = handshakeVariant === "ok";
  // A refused handshake on "/" that is also a POST without a JSON type is a plain 415.
  const expect = upgradeOk ? [101] : [400, 404, 405, 415, 426];
  if (path === "/") expect.push(429);
  return {
    index,
    kind: "ws-raw",
    variant: upgradeOk ? garbageVariant : `handshake-${handshakeVariant}`,
    transport: "raw",
    steps: upgradeOk
      ? [
          { data: hs, delayMs: 0 },
          { data: garbage, delayMs: 20 },
        ]
      : [{ data: hs, delayMs: 0 }],
    after: "read",
    holdMs: 0,
    responses: 1,
    expect,
    jsonrpc: false,
  };
}

export function wsStream(rng: Rng, index: number): WsCase {
  const frames: WsFrame[] = [];
  const variant = rng.pick(["listen", "text", "binary", "oversized"]);
  if (variant === "text") frames.push({ data: Buffer.from(toJson(junkValue(rng))), binary: false });
  if (variant === "binary") frames.push({ data: rng.bytes(rng.range(1, 1000)), binary: true });
  if (variant === "oversized") frames.push({ data: rng.bytes(70_000), binary: rng.chance(0.5) });
  return {
    index,
    kind: "ws-stream",
    variant,
    transport: "ws",
    path: "/flashblocks",
    stream: true,
    frames,
    sentinel: false,
    listenMs: rng.range(200, 1200),
  };
}
