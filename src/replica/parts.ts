// A stream message larger than the NATS server's max_payload (1 MiB by default; a sealed block
// of ~1,700 transfers is larger) goes as consecutive parts on its subject, each with the header
// `Flashnode-Part: i/N` and the same headers as a whole message would have. The publisher is the
// only writer of its subjects and publishes a message's parts in order, so they are consecutive
// in the stream; readers join them and decode the whole. A message published whole carries no
// part header, as before.

/** The header of a message published in parts: "i/N", part i (from 0) of N. */
export const PART_HEADER = "Flashnode-Part";

/** Room left in each part for the message's headers (the server counts them in max_payload). */
const HEADER_ROOM = 8 * 1024;

/** The payload cut to fit `maxPayload` (the server's); one part when it already fits. */
export function splitPayload(bytes: Uint8Array, maxPayload: number): Uint8Array[] {
  const size = Math.max(1024, maxPayload - HEADER_ROOM);
  if (bytes.length <= size) return [bytes];
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  return parts;
}

/** The headers of part `index` of `count`: none for a message sent whole. */
export function partHeader(index: number, count: number): Record<string, string> {
  return count === 1 ? {} : { [PART_HEADER]: `${index}/${count}` };
}

/** The part header's value, or undefined when the message is whole. */
export function parsePart(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined || value === "") return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(value);
  if (m === null) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index < count ? { index, count } : undefined;
}

/** Whether a message is the last part of its whole (or whole itself). */
export function completesMessage(partHeader: string | undefined): boolean {
  const p = parsePart(partHeader);
  return p === undefined || p.index === p.count - 1;
}

/**
 * Joins parts as a reader meets them, in stream order. A part out of its place (a publisher that
 * stopped between parts and published the message again) drops what was gathered: the message
 * starts over at its part 0.
 */
export class PartJoiner {
  private gathered: Uint8Array[] = [];
  private count = 0;

  /** The whole payload once `data` completes it; undefined while parts are missing. */
  add(partHeader: string | undefined, data: Uint8Array): Uint8Array | undefined {
    const p = parsePart(partHeader);
    if (p === undefined) {
      this.reset();
      return data;
    }
    if (p.index === 0) {
      this.gathered = [];
      this.count = p.count;
    }
    if (p.count !== this.count || p.index !== this.gathered.length) {
      this.reset();
      return undefined;
    }
    // A copy: the client may reuse the buffer a message arrived in.
    this.gathered.push(data.slice());
    if (this.gathered.length < this.count) return undefined;
    const whole = concat(this.gathered);
    this.reset();
    return whole;
  }

  /** Whether parts of a message are waiting for the rest. */
  get pending(): boolean {
    return this.gathered.length > 0;
  }

  reset(): void {
    this.gathered = [];
    this.count = 0;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
