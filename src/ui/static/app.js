// The live page: follows the node it is served by. Flashblocks and heads arrive over the
// WebSocket subscriptions; the node's own timings (send → pre-confirmed latency, flashblock
// intervals, recent blocks' flashblocks) come from flashnode_getTimings, asked once a second.
import { drawTimeChart, percentile, summary } from "./chart.js";
import { renderLookup } from "./lookup.js";
import { NodeLink } from "./rpc.js";
import { $, renderBlocks, renderBuilding, renderPending, renderState } from "./view.js";
import { DEPOSIT_TYPE, hexNumber, readFlashblock } from "./wire.js";

const BLOCKS_SHOWN = 8;
const TIMINGS_EVERY_MS = 1_000;
const HEAD_POLL_MS = 2_000;

const origin = window.location;
const link = new NodeLink({
  wsUrl: `${origin.protocol === "https:" ? "wss" : "ws"}://${origin.host}/`,
  httpUrl: `${origin.protocol}//${origin.host}/`,
  onState: renderState,
  onConnect: load,
});

let s = freshState();
/** Bumped at every (re)connection: timers of an older connection stop themselves. */
let session = 0;
let lookedUp;

function freshState() {
  return {
    head: undefined,
    pending: undefined,
    blocks: new Map(),
    latency: [],
    intervals: [],
    latencyByHash: new Map(),
    since: 0,
    clockOffset: 0,
    windowMs: 60_000,
    keptTransactions: 0,
    live: true,
  };
}

const lookup = (hash) => {
  lookedUp = hash;
  $("lookup-hash").value = hash;
  if (window.location.hash !== `#tx=${hash}`) history.replaceState(null, "", `#tx=${hash}`);
  void renderLookup(link, hash, s.keptTransactions);
};

function startPending(number, base) {
  s.pending = {
    number,
    gasLimit: base?.gasLimit ?? s.head?.gasLimit,
    gasUsed: 0,
    flashblocks: new Map(),
    txs: new Map(),
  };
}

function onFlashblock(msg) {
  const previous = s.pending;
  const fb = readFlashblock(
    msg,
    previous?.number === hexNumber(msg?.metadata?.block_number) ? previous.gasUsed : 0,
  );
  if (fb.block === undefined || fb.index === undefined) return;
  if (s.pending === undefined || s.pending.number !== fb.block || fb.index === 0)
    startPending(fb.block, fb.base);
  const p = s.pending;
  if (fb.base?.gasLimit !== undefined) p.gasLimit = fb.base.gasLimit;
  p.gasUsed = fb.gasUsed;
  const deposits = fb.transactions.filter((t) => t.type === DEPOSIT_TYPE).length;
  p.flashblocks.set(fb.index, {
    index: fb.index,
    count: fb.transactions.length,
    deposits,
    gasUsed: fb.gasUsed,
  });
  // Bounded under a long block time: the oldest go (the map iterates in index order).
  for (const index of p.flashblocks.keys()) {
    if (p.flashblocks.size <= 100) break;
    p.flashblocks.delete(index);
  }
  for (const t of fb.transactions)
    if (t.hash !== undefined) p.txs.set(t.hash, { ...t, flashblock: fb.index });
  // A stream without receipts (Base v0.8): the hashes come from the pending block.
  if (fb.transactions.some((t) => t.hash === undefined)) void pendingHashes(p, fb.index);
  $("pending-number").textContent = `#${p.number} · flashblock ${fb.index}`;
  renderBuilding(p);
  renderPending(p, s.latencyByHash, lookup);
}

async function pendingHashes(p, index) {
  const block = await link.call("eth_getBlockByNumber", ["pending", false]);
  if (hexNumber(block?.number) !== p.number) return;
  for (const hash of block.transactions ?? [])
    if (!p.txs.has(hash)) p.txs.set(hash, { hash, flashblock: index });
  renderPending(p, s.latencyByHash, lookup);
}

function onHead(header) {
  const number = hexNumber(header.number);
  if (number === undefined) return;
  s.head = { number, hash: header.hash, gasLimit: hexNumber(header.gasLimit) };
  $("head").textContent = `#${number}`;
  const p = s.pending;
  const known = s.blocks.get(number) ?? {};
  s.blocks.set(number, {
    ...known,
    number,
    hash: header.hash,
    timestamp: hexNumber(header.timestamp),
    gasUsed: hexNumber(header.gasUsed),
    ...(p?.number === number
      ? {
          txHashes: [...p.txs.keys()],
          flashblocks: known.flashblocks ?? [...p.flashblocks.values()],
        }
      : {}),
  });
  if (p?.number === number) {
    s.pending = undefined;
    renderBuilding(undefined);
    renderPending(undefined, s.latencyByHash, lookup);
  }
  trimBlocks();
  renderBlocks(s.blocks, lookup);
  // The block's own list is authoritative (a page that joined mid-block saw only part of it).
  void loadBlock(number);
  if (lookedUp !== undefined) void renderLookup(link, lookedUp, s.keptTransactions, true);
}

async function loadBlock(number) {
  const block = await link.call("eth_getBlockByNumber", [`0x${number.toString(16)}`, false]);
  if (block === null || block === undefined) return;
  const known = s.blocks.get(number) ?? {};
  s.blocks.set(number, {
    ...known,
    number,
    hash: block.hash,
    timestamp: hexNumber(block.timestamp),
    gasUsed: hexNumber(block.gasUsed),
    txHashes: block.transactions,
    txCount: block.transactions.length,
  });
  trimBlocks();
  renderBlocks(s.blocks, lookup);
}

function trimBlocks() {
  const numbers = [...s.blocks.keys()].sort((a, b) => b - a);
  for (const n of numbers.slice(BLOCKS_SHOWN)) s.blocks.delete(n);
}

/** The node's own figures since the last ask; the recent blocks' flashblocks as it saw them. */
async function refreshTimings() {
  const t = await link.call("flashnode_getTimings", s.since === 0 ? [] : [s.since]);
  s.live = t.live;
  s.windowMs = t.windowMs || 60_000;
  s.keptTransactions = t.keptTransactions;
  s.clockOffset = t.now - Date.now();
  for (const sample of t.preconfirmLatency) {
    s.latency.push(sample);
    s.latencyByHash.set(sample[2], sample[1]);
  }
  s.intervals.push(...t.flashblockInterval);
  const newest = Math.max(
    s.since,
    ...t.preconfirmLatency.map((x) => x[0]),
    ...t.flashblockInterval.map((x) => x[0]),
  );
  s.since = newest;
  const cutoff = t.now - s.windowMs;
  s.latency = s.latency.filter((x) => x[0] > cutoff);
  s.intervals = s.intervals.filter((x) => x[0] > cutoff);
  if (s.latencyByHash.size > 20_000) s.latencyByHash = new Map([...s.latencyByHash].slice(-10_000));
  for (const b of t.blocks) {
    const number = hexNumber(b.number);
    const flashblocks = b.flashblocks.map((f) => ({
      index: f.index,
      count: f.transactions,
      deposits: f.deposits,
      gasUsed: hexNumber(f.gasUsed),
      publishedAt: f.publishedAt,
    }));
    const known = s.blocks.get(number);
    if (known !== undefined) {
      known.flashblocks = flashblocks;
      known.flashblockCount = b.flashblockCount;
    }
    if (known !== undefined && b.sealedAt !== null) known.sealedAt = b.sealedAt;
  }
  drawCharts(t.now);
  $("building").hidden = !s.live;
  $("pending").hidden = !s.live;
  $("charts").hidden = !s.live;
  renderBlocks(s.blocks, lookup);
  if (s.pending !== undefined) renderPending(s.pending, s.latencyByHash, lookup);
}

function drawCharts(now) {
  const latency = drawTimeChart($("latency-chart"), {
    samples: s.latency,
    now,
    windowMs: s.windowMs,
    kind: "dots",
  });
  $("latency-summary").textContent =
    latency.length === 0
      ? "no transaction sent in the last minute"
      : summary(latency.map((x) => x[1]));
  const intervals = drawTimeChart($("interval-chart"), {
    samples: s.intervals,
    now,
    windowMs: s.windowMs,
    kind: "line",
    reference: percentile(
      s.intervals.map((x) => x[1]),
      50,
    ),
  });
  $("interval-summary").textContent = summary(intervals.map((x) => x[1]));
}

/** After every (re)connection: subscribe, then load what the node has now. */
async function load(l) {
  const mine = ++session;
  s = freshState();
  if (l.state === "live") {
    await l.subscribe("newHeads", onHead);
    await l.subscribe("newFlashblocks", onFlashblock);
  }
  const [chainId, latest, pending] = await Promise.all([
    l.call("eth_chainId"),
    l.call("eth_getBlockByNumber", ["latest", false]),
    l.call("eth_getBlockByNumber", ["pending", true]),
  ]);
  $("chain-id").textContent = String(hexNumber(chainId));
  $("endpoint").textContent = `${origin.host} (${l.ws !== undefined ? "WebSocket" : "HTTP"})`;
  if (s.head === undefined || hexNumber(latest.number) > s.head.number) onHeadLoaded(latest);
  const pendingNumber = hexNumber(pending?.number);
  if (pendingNumber !== undefined && pendingNumber > s.head.number && s.pending === undefined) {
    startPending(pendingNumber, { gasLimit: hexNumber(pending.gasLimit) });
    s.pending.gasUsed = hexNumber(pending.gasUsed) ?? 0;
    for (const tx of pending.transactions)
      s.pending.txs.set(tx.hash, { hash: tx.hash, type: hexNumber(tx.type) });
  }
  if (s.pending !== undefined) $("pending-number").textContent = `#${s.pending.number}`;
  renderBuilding(s.pending);
  renderPending(s.pending, s.latencyByHash, lookup);
  const head = s.head.number;
  await Promise.all(
    Array.from({ length: Math.min(BLOCKS_SHOWN, head + 1) }, (_, i) => loadBlock(head - i)),
  );
  await refreshTimings();
  // The pending block's flashblocks as the node saw them (the page joined mid-block).
  const summaryOfPending = s.pending === undefined ? undefined : await pendingSummary();
  if (
    summaryOfPending !== undefined &&
    s.pending !== undefined &&
    s.pending.flashblocks.size === 0
  ) {
    for (const f of summaryOfPending) s.pending.flashblocks.set(f.index, f);
    // The block's transactions in order, flashblock by flashblock: each one's index.
    const txs = [...s.pending.txs.values()];
    let at = 0;
    for (const f of summaryOfPending)
      for (let k = 0; k < f.count && at < txs.length; k++) txs[at++].flashblock ??= f.index;
    renderBuilding(s.pending);
    renderPending(s.pending, s.latencyByHash, lookup);
  }
  const tick = async () => {
    if (mine !== session) return;
    try {
      await refreshTimings();
      if (l.state === "polling") await pollHead();
    } catch {
      // The link notices a dead node by itself; the next tick tries again.
    }
    if (mine === session) setTimeout(tick, l.state === "polling" ? HEAD_POLL_MS : TIMINGS_EVERY_MS);
  };
  setTimeout(tick, TIMINGS_EVERY_MS);
  if (lookedUp !== undefined) void renderLookup(l, lookedUp, s.keptTransactions);
}

function onHeadLoaded(latest) {
  s.head = {
    number: hexNumber(latest.number),
    hash: latest.hash,
    gasLimit: hexNumber(latest.gasLimit),
  };
  $("head").textContent = `#${s.head.number}`;
}

async function pendingSummary() {
  const t = await link.call("flashnode_getTimings", [Number.MAX_SAFE_INTEGER]);
  const b = t.blocks.find((x) => hexNumber(x.number) === s.pending?.number);
  return b?.flashblocks.map((f) => ({
    index: f.index,
    count: f.transactions,
    deposits: f.deposits,
    gasUsed: hexNumber(f.gasUsed),
  }));
}

async function pollHead() {
  const latest = await link.call("eth_getBlockByNumber", ["latest", false]);
  const number = hexNumber(latest?.number);
  if (number === undefined || number <= (s.head?.number ?? -1)) return;
  onHeadLoaded(latest);
  await loadBlock(number);
}

$("lookup-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const hash = $("lookup-hash").value.trim();
  if (hash !== "") lookup(hash);
});

const fromUrl = /^#tx=(0x[0-9a-fA-F]{64})$/.exec(window.location.hash);
if (fromUrl !== null) {
  lookedUp = fromUrl[1];
  $("lookup-hash").value = lookedUp;
}
link.start();
