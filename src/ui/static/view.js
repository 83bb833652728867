// Rendering the page's state into the document. Text goes in through textContent only: nothing
// the node sends is ever parsed as HTML.
import { DEPOSIT_TYPE, typeLabel } from "./wire.js";

export const $ = (id) => document.getElementById(id);

const FLASHBLOCKS_SHOWN = 24;

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("data-"))
      e.dataset[k.slice(5).replace(/-(.)/g, (_, c) => c.toUpperCase())] = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) e.append(c);
  return e;
}

export function shortHash(hash) {
  return typeof hash === "string" && hash.length > 18
    ? `${hash.slice(0, 10)}…${hash.slice(-6)}`
    : String(hash ?? "—");
}

export function clock(epochMs) {
  if (epochMs === undefined || epochMs === null) return "—";
  const d = new Date(epochMs);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

export function gas(n) {
  return n === undefined ? "—" : n.toLocaleString("en-US");
}

export function duration(ms) {
  if (ms === undefined || ms === null) return "—";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms < 10 ? ms.toFixed(1) : ms.toFixed(0)} ms`;
}

/** A transaction hash that looks itself up when clicked. */
export function txLink(hash, onLookup) {
  const a = h(
    "a",
    { href: `#tx=${hash}`, class: "tx", "data-tx": hash, title: hash },
    shortHash(hash),
  );
  a.addEventListener("click", (ev) => {
    ev.preventDefault();
    onLookup(hash);
  });
  return a;
}

/** The block being built: its gas and one cell per flashblock. */
export function renderBuilding(pending) {
  $("building-number").textContent = pending === undefined ? "" : `#${pending.number}`;
  const list = $("flashblocks");
  if (pending === undefined) {
    list.replaceChildren();
    $("gas-text").textContent = "waiting for the next flashblock…";
    $("gas-bar").className = "gas-bar w0";
    return;
  }
  const fbs = [...pending.flashblocks.values()].sort((a, b) => a.index - b.index);
  // A long block time (blocks only on evm_mine) makes hundreds: the newest ones are shown.
  const hidden = Math.max(0, fbs.length - FLASHBLOCKS_SHOWN);
  list.replaceChildren(
    ...(hidden > 0 ? [h("li", { class: "fb more" }, `… ${hidden} earlier`)] : []),
    ...fbs.slice(hidden).map((f) =>
      h(
        "li",
        {
          class: `fb${f.count > 0 ? " has-txs" : ""}${f.deposits > 0 ? " has-deposit" : ""}`,
          "data-index": String(f.index),
          title: `flashblock ${f.index}: ${f.count} transactions (${f.deposits} deposits), block gas ${gas(f.gasUsed)}`,
        },
        h("span", { class: "fb-index" }, String(f.index)),
        h("span", { class: "fb-count" }, `${f.count} tx`),
        f.deposits > 0 ? h("span", { class: "fb-deposit" }, "deposit") : undefined,
        h("span", { class: "fb-gas" }, gas(f.gasUsed)),
      ),
    ),
  );
  const limit = pending.gasLimit;
  const share = limit ? Math.min(1, pending.gasUsed / limit) : 0;
  // Width in 2% steps through classes: no inline style under the page's CSP.
  $("gas-bar").className = `gas-bar w${Math.round(share * 50) * 2}`;
  $("gas-text").textContent =
    `${gas(pending.gasUsed)} gas${limit ? ` of ${gas(limit)} (${(share * 100).toFixed(2)}%)` : ""} · ` +
    `${pending.txs.size} transactions in ${(fbs.at(-1)?.index ?? 0) + 1} flashblocks`;
}

/** The pre-confirmed transactions of the block being built. */
export function renderPending(pending, latencyByHash, onLookup) {
  const rows = pending === undefined ? [] : [...pending.txs.values()];
  $("pending-count").textContent = rows.length === 0 ? "" : `(${rows.length})`;
  $("pending-empty").hidden = rows.length > 0;
  const shown = rows.slice(-200).reverse();
  $("pending-txs").replaceChildren(
    ...shown.map((t) =>
      h(
        "tr",
        { "data-tx": t.hash, class: t.type === DEPOSIT_TYPE ? "deposit" : undefined },
        h("td", {}, t.hash === undefined ? "…" : txLink(t.hash, onLookup)),
        h("td", {}, typeLabel(t.type)),
        h("td", { class: "num" }, t.flashblock === undefined ? "—" : String(t.flashblock)),
        h("td", { class: "num" }, gas(t.gas)),
        h("td", {}, t.status === undefined ? "—" : t.status === 1 ? "success" : "reverted"),
        h(
          "td",
          { class: "num" },
          t.type === DEPOSIT_TYPE ? "not sent by a client" : duration(latencyByHash.get(t.hash)),
        ),
      ),
    ),
  );
}

/** The newest sealed blocks, each with its flashblocks and transactions. */
export function renderBlocks(blocks, onLookup) {
  const list = [...blocks.values()].sort((a, b) => b.number - a.number);
  $("block-list").replaceChildren(
    ...list.map((b) => {
      const txs = b.txHashes ?? [];
      const all = (b.flashblocks ?? []).slice().sort((x, y) => x.index - y.index);
      const fbs = all.slice(-32);
      const earlier = (b.flashblockCount ?? all.length) - fbs.length;
      return h(
        "li",
        { "data-block": String(b.number), class: "block" },
        h(
          "div",
          { class: "block-head" },
          h("strong", {}, `#${b.number}`),
          h("code", { title: b.hash ?? "" }, shortHash(b.hash)),
          h("span", {}, `${b.txCount ?? txs.length} tx`),
          h("span", {}, `${gas(b.gasUsed)} gas`),
          h(
            "span",
            { class: "muted" },
            b.sealedAt !== undefined
              ? `sealed ${clock(b.sealedAt)}`
              : b.timestamp !== undefined
                ? `time ${clock(b.timestamp * 1000).slice(0, 8)}`
                : "",
          ),
        ),
        fbs.length === 0
          ? h("p", { class: "muted small" }, "flashblocks not seen by this page or node")
          : h(
              "ol",
              { class: "mini-fbs", title: "transactions per flashblock" },
              earlier > 0 ? h("li", { class: "more" }, `… ${earlier}`) : undefined,
              ...fbs.map((f) =>
                h(
                  "li",
                  {
                    class: f.count > 0 ? "has-txs" : undefined,
                    title: `flashblock ${f.index}: ${f.count} tx`,
                  },
                  String(f.count),
                ),
              ),
            ),
        txs.length === 0
          ? undefined
          : h(
              "p",
              { class: "block-txs" },
              ...txs.slice(0, 8).map((t) => txLink(t, onLookup)),
              txs.length > 8
                ? h("span", { class: "muted" }, ` +${txs.length - 8} more`)
                : undefined,
            ),
      );
    }),
  );
}

export function renderState(state, detail) {
  document.body.dataset.state = state;
  const conn = $("conn");
  const banner = $("banner");
  if (state === "live") {
    conn.textContent = "live";
    banner.hidden = true;
  } else if (state === "polling") {
    conn.textContent = "connected (polling)";
    banner.hidden = false;
    banner.className = "banner info";
    banner.textContent =
      "This node serves an archive that does not change (`flashnode serve`): the page polls it, and there are no flashblocks to show.";
  } else if (state === "connecting") {
    conn.textContent = "connecting…";
    banner.hidden = true;
  } else {
    conn.textContent = "disconnected";
    banner.hidden = false;
    banner.className = "banner error";
    const when = detail?.inMs !== undefined ? ` in ${(detail.inMs / 1000).toFixed(1)} s` : "";
    banner.textContent = `Disconnected from the node: what you see is no longer live. Reconnecting${when}${detail?.attempt > 1 ? ` (attempt ${detail.attempt})` : ""}…`;
  }
}
