// A transaction looked up by hash: what it is, when the node's sequencer took it, when it was
// pre-confirmed (its flashblock published) and when its block was sealed. The times are the
// node's own (flashnode_getTransactionTimes), kept for its newest transactions only; for an older
// one the page says so and shows what the chain itself records (the block and its timestamp).
import { $, clock, duration, h, shortHash } from "./view.js";
import { hexNumber, typeLabel } from "./wire.js";

const ZERO_HASH = `0x${"0".repeat(64)}`;
let shown = 0;

function row(label, ...value) {
  return h("div", { class: "row" }, h("dt", {}, label), h("dd", {}, ...value));
}

function eth(weiHex) {
  const wei = BigInt(weiHex ?? "0x0");
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, "0").replace(/0+$/, "");
  return `${whole}${frac === "" ? "" : `.${frac}`} ETH`;
}

/** `quiet`: a refresh after a seal, without the "looking up" flash. */
export async function renderLookup(link, hash, keptTransactions, quiet = false) {
  const out = $("lookup-result");
  const mine = ++shown;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) {
    out.replaceChildren(h("p", { class: "error" }, "A transaction hash is 0x and 64 hex digits."));
    return;
  }
  if (!quiet) out.replaceChildren(h("p", { class: "muted" }, `looking up ${shortHash(hash)}…`));
  let tx;
  let receipt;
  let times;
  try {
    [tx, receipt, times] = await Promise.all([
      link.call("eth_getTransactionByHash", [hash]),
      link.call("eth_getTransactionReceipt", [hash]),
      link.call("flashnode_getTransactionTimes", [hash]),
    ]);
  } catch (e) {
    if (mine === shown)
      out.replaceChildren(h("p", { class: "error" }, `lookup failed: ${e.message}`));
    return;
  }
  if (mine !== shown) return;
  const sealedHash =
    times?.blockHash ??
    (receipt?.blockHash !== undefined && receipt.blockHash !== ZERO_HASH
      ? receipt.blockHash
      : null);
  const blockNumber = hexNumber(times?.blockNumber ?? receipt?.blockNumber ?? tx?.blockNumber);
  if (tx === null && receipt === null && times === null) {
    out.replaceChildren(
      h(
        "p",
        { "data-found": "false" },
        `${shortHash(hash)} is not known to this node (not pending, not in any block).`,
      ),
    );
    return;
  }
  const rows = [row("hash", h("code", {}, hash))];
  if (tx !== null) {
    rows.push(
      row("type", typeLabel(hexNumber(tx.type))),
      row(
        "from → to",
        h("code", {}, shortHash(tx.from)),
        " → ",
        h("code", {}, tx.to === null ? "contract creation" : shortHash(tx.to)),
      ),
      row("value", eth(tx.value)),
    );
  }
  if (receipt !== null)
    rows.push(
      row(
        "status",
        hexNumber(receipt.status) === 1 ? "success" : "reverted",
        ` · ${hexNumber(receipt.gasUsed)?.toLocaleString("en-US")} gas`,
      ),
    );
  if (times !== null) {
    rows.push(
      row(
        "received",
        times.receivedAt === null
          ? times.deposit
            ? "a deposit: sent by no client"
            : "not through this sequencer's intake since it started (re-executed after a restart)"
          : clock(times.receivedAt),
      ),
      row(
        "pre-confirmed",
        clock(times.preconfirmedAt),
        times.preconfirmLatencyMs === null
          ? ""
          : ` (${duration(times.preconfirmLatencyMs)} after it was sent)`,
        ` in block #${hexNumber(times.blockNumber)}, flashblock ${times.flashblockIndex}, position ${hexNumber(times.transactionIndex)}`,
      ),
    );
  }
  if (sealedHash !== null) {
    if (times?.sealedAt !== null && times?.sealedAt !== undefined)
      rows.push(
        row(
          "sealed",
          clock(times.sealedAt),
          ` (${duration(times.sealedAt - times.preconfirmedAt)} after its pre-confirmation) in block #${blockNumber} `,
          h("code", { title: sealedHash }, shortHash(sealedHash)),
        ),
      );
    else {
      const block = await link
        .call("eth_getBlockByNumber", [`0x${blockNumber.toString(16)}`, false])
        .catch(() => null);
      if (mine !== shown) return;
      const at = hexNumber(block?.timestamp);
      rows.push(
        row(
          "sealed",
          `in block #${blockNumber} `,
          h("code", { title: sealedHash }, shortHash(sealedHash)),
          at === undefined ? "" : `, block time ${new Date(at * 1000).toLocaleString()}`,
        ),
      );
    }
  } else if (times !== null || receipt !== null) {
    rows.push(row("sealed", "not yet: pre-confirmed, waiting for its block to seal"));
  } else {
    rows.push(row("status", "in the pool, not yet pre-confirmed"));
  }
  const note =
    times === null && (receipt !== null || tx !== null)
      ? h(
          "p",
          { class: "muted small" },
          `The node keeps the intake and pre-confirmation times of its newest ${keptTransactions.toLocaleString("en-US")} transactions, since it started; this one is older, or arrived before this node (or reader) was running.`,
        )
      : undefined;
  out.replaceChildren(
    h(
      "dl",
      {
        class: "lookup-facts",
        "data-found": "true",
        "data-preconfirmed": String(times !== null || receipt !== null),
        "data-sealed": String(sealedHash !== null),
      },
      ...rows,
    ),
    ...(note === undefined ? [] : [note]),
  );
}
