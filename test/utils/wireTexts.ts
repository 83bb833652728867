// Two nodes' /flashblocks streams side by side, as text: a replica renders Base's wire message
// from the update it is sent, and what it serves must be the sequencer's message byte for byte.
import WebSocket from "ws";
import { within } from "./within.ts";

export type WireTexts = {
  /** Message text by `block/index`, the first copy of each. */
  readonly texts: Map<string, string>;
  close(): void;
};

export async function recordWireTexts(wsBase: string, onMessage: () => void): Promise<WireTexts> {
  const texts = new Map<string, string>();
  const ws = new WebSocket(`${wsBase}flashblocks`);
  ws.on("message", (data: Buffer) => {
    const text = data.toString("utf8");
    const m = JSON.parse(text) as { index: number; metadata: { block_number: number } };
    const key = `${m.metadata.block_number}/${m.index}`;
    if (!texts.has(key)) texts.set(key, text);
    onMessage();
  });
  await within(
    new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    }),
    "the /flashblocks stream's opening",
  );
  return { texts, close: () => ws.close() };
}

/**
 * Records both streams until `count` flashblocks with transactions in them reached both, while
 * `drive` sends transactions; returns those flashblocks' texts from each side.
 */
export async function sameWireTexts(
  sourceWs: string,
  replicaWs: string,
  count: number,
  drive: () => Promise<void>,
): Promise<{ readonly source: string[]; readonly replica: string[] }> {
  let done: () => void = () => {};
  const enough = new Promise<void>((resolve) => {
    done = resolve;
  });
  const sides: { source?: WireTexts; replica?: WireTexts } = {};
  const shared = (): string[] => {
    const { source, replica } = sides;
    if (source === undefined || replica === undefined) return [];
    return [...replica.texts.keys()].filter(
      (k) => source.texts.has(k) && !source.texts.get(k)!.includes('"transactions":[]'),
    );
  };
  const check = () => {
    if (shared().length >= count) done();
  };
  const source = await recordWireTexts(sourceWs, check);
  sides.source = source;
  const replica = await recordWireTexts(replicaWs, check);
  sides.replica = replica;
  let driving = true;
  const driver = (async () => {
    while (driving) await drive();
  })();
  try {
    await within(enough, `${count} flashblocks with transactions on both streams`);
  } finally {
    driving = false;
    await driver;
    source.close();
    replica.close();
  }
  const keys = shared();
  return {
    source: keys.map((k) => source.texts.get(k)!),
    replica: keys.map((k) => replica.texts.get(k)!),
  };
}
