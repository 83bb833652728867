// A response body in pieces, for results kept as UTF-8 bytes (a sealed block's receipts). Joining
// a large result into one string costs a fresh large V8 string per response — on this project's
// VM ~1.3 ms for 277 KB, most of a 200-receipt answer's time — while the pieces go to the socket
// as they are (writev), the cached bytes never copied in JavaScript.

export type BodyPart = string | Buffer;

export class SplicedBody {
  readonly parts: readonly BodyPart[];
  /** Bytes on the wire (the sum of the parts' UTF-8 lengths). */
  readonly byteLength: number;

  constructor(parts: readonly BodyPart[]) {
    this.parts = parts;
    let n = 0;
    for (const p of parts) n += typeof p === "string" ? Buffer.byteLength(p) : p.length;
    this.byteLength = n;
  }

  /** One buffer (a WebSocket frame). */
  toBuffer(): Buffer {
    return Buffer.concat(this.parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
  }

  /** UTF-16 units of the parts as text, an upper bound's input for geth's batch size limit. */
  textLength(): number {
    let n = 0;
    for (const p of this.parts) n += p.length;
    return n;
  }
}

/** `before`, the body's parts, `after`, with neighbouring strings joined. */
export function splice(before: string, body: SplicedBody, after: string): SplicedBody {
  return joinParts([before, ...body.parts, after]);
}

/** The parts in order, adjacent strings joined (fewer, larger writes). */
export function joinParts(items: readonly (BodyPart | SplicedBody)[]): SplicedBody {
  const parts: BodyPart[] = [];
  let text = "";
  const push = (p: BodyPart) => {
    if (typeof p === "string") text += p;
    else {
      if (text !== "") parts.push(text);
      text = "";
      parts.push(p);
    }
  };
  for (const item of items) {
    if (item instanceof SplicedBody) for (const p of item.parts) push(p);
    else push(item);
  }
  if (text !== "") parts.push(text);
  return new SplicedBody(parts);
}
