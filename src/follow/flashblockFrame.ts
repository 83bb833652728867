// One WebSocket frame of a flashblocks stream → its JSON value. Base's decoder (base/base
// `Flashblock::try_decode_message`): bytes that are UTF-8 JSON (first non-blank byte `{`) are
// parsed as they are, whether they came as a text or a binary frame; any other binary frame is
// brotli-compressed JSON (Base's public stream compresses).
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from "node:zlib";
import { FlashnodeError } from "../util/errors.ts";

/** A decompressed message larger than this is refused (a compression bomb costs nothing to send). */
export const MAX_DECODED_FRAME_BYTES = 16 * 1024 * 1024;

export type FrameErrorCode = "FRAME_BROTLI" | "FRAME_JSON" | "FRAME_TOO_LARGE";

export class FrameDecodeError extends FlashnodeError {
  override readonly name = "FrameDecodeError";
  constructor(
    readonly code: FrameErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const OPEN_BRACE = 0x7b;

function firstNonBlank(buf: Uint8Array): number | undefined {
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    // JSON whitespace: space, tab, LF, CR.
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new FrameDecodeError("FRAME_JSON", `not JSON: ${(e as Error).message}`);
  }
}

export type FrameEncoding = "text" | "binary-json" | "brotli";

export type DecodedFrame = {
  readonly json: unknown;
  readonly encoding: FrameEncoding;
  /** The JSON text's length in bytes after decompression. */
  readonly bytes: number;
};

/** Decodes a frame as `ws` hands it over (text frames as strings, binary ones as bytes). */
export function decodeFrame(
  data: string | Uint8Array,
  maxBytes = MAX_DECODED_FRAME_BYTES,
): DecodedFrame {
  if (typeof data === "string") {
    return { json: parseJson(data), encoding: "text", bytes: Buffer.byteLength(data) };
  }
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (firstNonBlank(buf) === OPEN_BRACE) {
    return { json: parseJson(buf.toString("utf8")), encoding: "binary-json", bytes: buf.length };
  }
  let out: Buffer;
  try {
    out = brotliDecompressSync(buf, { maxOutputLength: maxBytes });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError)
      throw new FrameDecodeError("FRAME_TOO_LARGE", `decompresses past ${maxBytes} bytes`);
    throw new FrameDecodeError("FRAME_BROTLI", `neither JSON nor brotli: ${err.message}`);
  }
  return { json: parseJson(out.toString("utf8")), encoding: "brotli", bytes: out.length };
}

/** Brotli as Base's websocket-proxy compresses (quality 5, window 22): for tests and dev tools. */
export function brotliFrame(json: string): Buffer {
  const buf = Buffer.from(json, "utf8");
  return brotliCompressSync(buf, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: 5,
      [zlibConstants.BROTLI_PARAM_LGWIN]: 22,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: buf.length,
    },
  });
}
