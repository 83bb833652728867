// The page's link to the node: JSON-RPC over the node's WebSocket (with eth_subscribe), or over
// HTTP POST when the node has no WebSocket. A node with nothing to notify (`flashnode serve`: an
// archive that does not change) is polled. It reconnects by itself when the node goes away (a
// restart) and says so through `onState`.

const CALL_TIMEOUT_MS = 10_000;
/** A connection that answers nothing for this long is treated as dead (closed and reopened). */
const PROBE_EVERY_MS = 5_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 4_000;

export class RpcError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * States: "connecting", "live" (WebSocket), "polling" (no notifications: WebSocket calls, or HTTP),
 * "disconnected".
 * `onConnect(link)` runs after every (re)connection: load state and subscribe there.
 */
export class NodeLink {
  constructor({ wsUrl, httpUrl, onState, onConnect }) {
    this.wsUrl = wsUrl;
    this.httpUrl = httpUrl;
    this.onState = onState;
    this.onConnect = onConnect;
    this.state = "connecting";
    this.ws = undefined;
    this.nextId = 1;
    this.inflight = new Map();
    this.subscriptions = new Map();
    this.retryMs = RETRY_MIN_MS;
    this.attempt = 0;
    this.generation = 0;
    this.probe = undefined;
    /** Once connected, every later attempt is a reconnection: shown as disconnected. */
    this.everConnected = false;
  }

  start() {
    this.openSocket();
  }

  setState(state, detail) {
    this.state = state;
    this.onState(state, detail);
  }

  openSocket() {
    const generation = ++this.generation;
    this.attempt++;
    const reconnecting = this.everConnected || this.attempt > 1;
    this.setState(reconnecting ? "disconnected" : "connecting", { attempt: this.attempt });
    let opened = false;
    let ws;
    try {
      ws = new WebSocket(this.wsUrl);
    } catch {
      this.tryHttp(generation);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      opened = true;
      this.everConnected = true;
      this.retryMs = RETRY_MIN_MS;
      this.attempt = 0;
      this.setState("live");
      this.startProbe(generation);
      this.connected(generation);
    };
    ws.onmessage = (ev) => this.onMessage(ev.data);
    ws.onclose = () => {
      if (this.ws === ws) this.ws = undefined;
      this.failAll("disconnected");
      this.subscriptions.clear();
      if (generation !== this.generation) return;
      // A node without a WebSocket (serve) refuses the upgrade: HTTP may still answer.
      if (!opened) this.tryHttp(generation);
      else this.retry(generation);
    };
  }

  /** After a WebSocket that never opened: JSON-RPC over HTTP, polled by the page. */
  async tryHttp(generation) {
    try {
      await this.httpCall("eth_blockNumber", []);
    } catch {
      this.retry(generation);
      return;
    }
    if (generation !== this.generation) return;
    this.everConnected = true;
    this.retryMs = RETRY_MIN_MS;
    this.attempt = 0;
    this.setState("polling");
    this.startProbe(generation);
    this.connected(generation);
  }

  async connected(generation) {
    try {
      await this.onConnect(this);
    } catch (e) {
      // A failed load on a connection that is still up: start over on a fresh one.
      if (generation === this.generation) this.drop(`loading failed: ${e.message}`);
    }
  }

  retry(generation) {
    if (generation !== this.generation) return;
    this.stopProbe();
    this.setState("disconnected", { attempt: this.attempt, inMs: this.retryMs });
    const delay = this.retryMs;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    setTimeout(() => {
      if (generation === this.generation) this.openSocket();
    }, delay);
  }

  /** Gives up the current connection (it stopped answering) and reconnects. */
  drop(reason) {
    const generation = this.generation;
    this.failAll(reason);
    if (this.ws !== undefined) {
      const ws = this.ws;
      this.ws = undefined;
      ws.onclose = null;
      ws.close();
    }
    this.subscriptions.clear();
    this.retry(generation);
  }

  startProbe(generation) {
    this.stopProbe();
    this.probe = setInterval(() => {
      if (generation !== this.generation) return this.stopProbe();
      this.call("eth_blockNumber", []).catch(() => {
        if (generation === this.generation && this.state !== "disconnected") this.drop("no answer");
      });
    }, PROBE_EVERY_MS);
  }

  stopProbe() {
    if (this.probe !== undefined) clearInterval(this.probe);
    this.probe = undefined;
  }

  failAll(reason) {
    for (const p of this.inflight.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.inflight.clear();
  }

  onMessage(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.method === "eth_subscription") {
      const handler = this.subscriptions.get(msg.params?.subscription);
      if (handler !== undefined) handler(msg.params.result);
      return;
    }
    const p = this.inflight.get(msg.id);
    if (p === undefined) return;
    this.inflight.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error !== undefined) p.reject(new RpcError(msg.error.code, msg.error.message));
    else p.resolve(msg.result);
  }

  /** One JSON-RPC call over whichever transport is up. */
  call(method, params = []) {
    if (this.ws === undefined || this.ws.readyState !== WebSocket.OPEN)
      return this.state === "polling"
        ? this.httpCall(method, params)
        : Promise.reject(new Error("disconnected"));
    const id = this.nextId++;
    const ws = this.ws;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.inflight.delete(id);
        reject(new Error(`${method}: no answer in ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.inflight.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  async httpCall(method, params) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), CALL_TIMEOUT_MS);
    try {
      const res = await fetch(this.httpUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }),
        signal: controller.signal,
      });
      const msg = await res.json();
      if (msg.error !== undefined) throw new RpcError(msg.error.code, msg.error.message);
      return msg.result;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * eth_subscribe over the WebSocket; false when there is none, or when the node notifies
   * nothing (an archive that does not change): the page then polls.
   */
  async subscribe(kind, handler) {
    if (this.state !== "live") return false;
    let id;
    try {
      id = await this.call("eth_subscribe", [kind]);
    } catch (e) {
      if (!(e instanceof RpcError) || !/^notifications not supported/.test(e.message)) throw e;
      this.setState("polling");
      return false;
    }
    this.subscriptions.set(id, handler);
    return true;
  }
}
