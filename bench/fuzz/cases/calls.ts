// Calls to the node's methods (and unknown ones) in well-formed envelopes: the `valid-call` kind,
// and the building block of batches, WebSocket frames and most transport cases.
import { type Json, toJson } from "./json.ts";
import { jsonPost, pickRoute } from "./requests.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv, HttpCase } from "./types.ts";
import { address, hash, hexData, junkValue, quantity, rawTx, selector, slot } from "./values.ts";

function callObject(rng: Rng, env: CaseEnv): Json {
  if (rng.chance(0.05)) return junkValue(rng);
  const o: Record<string, Json> = {};
  const put = (k: string, p: number, v: () => Json) => {
    if (rng.chance(p)) o[k] = v();
  };
  put("from", 0.5, () => address(rng, env));
  put("to", 0.85, () => (rng.chance(0.05) ? null : address(rng, env)));
  put("gas", 0.3, () => quantity(rng));
  put("gasPrice", 0.1, () => quantity(rng));
  put("maxFeePerGas", 0.15, () => quantity(rng));
  put("maxPriorityFeePerGas", 0.1, () => quantity(rng));
  put("value", 0.3, () => (rng.chance(0.2) ? `0x${"f".repeat(64)}` : quantity(rng)));
  put(rng.chance(0.5) ? "data" : "input", 0.7, () => hexData(rng));
  put("input", 0.05, () => hexData(rng)); // data and input both set
  put("nonce", 0.1, () => quantity(rng));
  put("chainId", 0.05, () => quantity(rng));
  put("accessList", 0.05, () =>
    rng.chance(0.5) ? [{ address: address(rng, env), storageKeys: [slot(rng)] }] : junkValue(rng),
  );
  put("blobVersionedHashes", 0.03, () => [hash(rng)]);
  put("authorizationList", 0.03, () => [
    {
      chainId: quantity(rng),
      address: address(rng, env),
      nonce: quantity(rng),
      yParity: "0x0",
      r: "0x1",
      s: "0x1",
    },
  ]);
  put("DATA", 0.03, () => hexData(rng)); // Go's case-insensitive keys
  return o;
}

function overrides(rng: Rng, env: CaseEnv): Json {
  if (rng.chance(0.3)) return junkValue(rng);
  const acct: Record<string, Json> = {};
  if (rng.chance(0.5)) acct.balance = quantity(rng);
  if (rng.chance(0.3)) acct.nonce = quantity(rng);
  if (rng.chance(0.4)) acct.code = hexData(rng);
  if (rng.chance(0.3)) acct.state = { [`0x${rng.hex(32)}`]: `0x${rng.hex(32)}` };
  if (rng.chance(0.2)) acct.stateDiff = { [String(slot(rng))]: hash(rng) };
  const key = address(rng, env);
  return { [typeof key === "string" ? key : "0x00"]: acct };
}

function blockOverrides(rng: Rng): Json {
  if (rng.chance(0.3)) return junkValue(rng);
  const o: Record<string, Json> = {};
  for (const k of ["number", "time", "gasLimit", "baseFeePerGas", "feeRecipient", "prevRandao"]) {
    if (rng.chance(0.3)) o[k] = k === "feeRecipient" ? `0x${rng.hex(20)}` : quantity(rng);
  }
  return o;
}

const UNKNOWN_METHODS = [
  "debug_traceChain",
  "admin_peers",
  "rpc_modules",
  "eth_subscribe",
  "eth_unsubscribe",
  "ETH_CHAINID",
  "eth_chainId ",
  " eth_chainId",
  "eth_chainid",
  "eth_getBalance\u0000",
  "",
  "_",
  "eth_",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "🦊_fox",
];

/** A filter object: mostly well-formed, with geth's edge cases and junk. */
function filterObject(rng: Rng, env: CaseEnv): Json {
  if (rng.chance(0.1)) return junkValue(rng);
  const o: Record<string, Json> = {};
  const topic = () => (rng.chance(0.8) ? hash(rng) : junkValue(rng));
  if (rng.chance(0.6)) o.fromBlock = selector(rng);
  if (rng.chance(0.6)) o.toBlock = selector(rng);
  if (rng.chance(0.15)) o.blockHash = hash(rng);
  if (rng.chance(0.5))
    o.address = rng.chance(0.5)
      ? address(rng, env)
      : Array.from({ length: rng.chance(0.05) ? 1100 : rng.int(4) }, () => address(rng, env));
  if (rng.chance(0.5))
    o.topics = Array.from({ length: rng.int(6) }, () =>
      rng.weighted<() => Json>([
        [3, topic],
        [2, () => null],
        [2, () => Array.from({ length: rng.int(4) }, () => (rng.chance(0.1) ? null : topic()))],
      ])(),
    );
  return o;
}

/** geth's TraceConfig: the struct logger's switches, a tracer (known, unknown or junk), a timeout. */
function traceConfig(rng: Rng): Json {
  if (rng.chance(0.1)) return junkValue(rng);
  const o: Record<string, Json> = {};
  for (const k of ["disableStack", "disableStorage", "enableMemory", "enableReturnData"])
    if (rng.chance(0.3)) o[k] = rng.chance(0.9) ? rng.chance(0.5) : junkValue(rng);
  if (rng.chance(0.2)) o.limit = rng.pick<Json>([0, 1, 10, -1, "x", 1e12]);
  if (rng.chance(0.5))
    o.tracer = rng.pick<Json>(["callTracer", "prestateTracer", "4byteTracer", "", 1, null]);
  if (rng.chance(0.3))
    o.tracerConfig = rng.pick<Json>([
      { onlyTopCall: true },
      { withLog: true },
      { diffMode: true },
      { diffMode: "x" },
      [],
      "x",
    ]);
  if (rng.chance(0.2)) o.timeout = rng.pick<Json>(["1s", "10ms", "0s", "-1s", "1h", "x", 5]);
  return o;
}

/** eth_simulateV1's options: a few blocks of calls with overrides, and its switches. */
function simulateOptions(rng: Rng, env: CaseEnv): Json {
  if (rng.chance(0.1)) return junkValue(rng);
  const blocks = Array.from({ length: rng.chance(0.05) ? 300 : rng.int(4) }, () => {
    const b: Record<string, Json> = {};
    if (rng.chance(0.4)) b.blockOverrides = blockOverrides(rng);
    if (rng.chance(0.3)) b.stateOverrides = overrides(rng, env);
    b.calls = Array.from({ length: rng.int(4) }, () => callObject(rng, env));
    return b;
  });
  const o: Record<string, Json> = { blockStateCalls: blocks };
  for (const k of ["validation", "traceTransfers", "returnFullTransactions"])
    if (rng.chance(0.3)) o[k] = rng.chance(0.9) ? rng.chance(0.5) : junkValue(rng);
  return o;
}

/** testing_buildBlockV1's payload attributes. */
function payloadAttributes(rng: Rng): Json {
  if (rng.chance(0.1)) return junkValue(rng);
  const o: Record<string, Json> = {};
  if (rng.chance(0.9))
    o.timestamp = rng.chance(0.7) ? `0x${(2 ** 32 + rng.int(1000)).toString(16)}` : quantity(rng);
  if (rng.chance(0.9)) o.prevRandao = hash(rng);
  if (rng.chance(0.9)) o.suggestedFeeRecipient = `0x${rng.hex(20)}`;
  if (rng.chance(0.8)) o.withdrawals = rng.chance(0.8) ? [] : junkValue(rng);
  if (rng.chance(0.8)) o.parentBeaconBlockRoot = hash(rng);
  return o;
}

/** A filter id: a well-formed random one, or junk. */
function filterId(rng: Rng): Json {
  return rng.chance(0.8) ? `0x${rng.hex(16)}` : junkValue(rng);
}

/**
 * An address a dev method may write or impersonate: never a funded test account, whose balance,
 * nonce and code the probes rely on after the run.
 */
function strayAddress(rng: Rng, env: CaseEnv): Json {
  const a = address(rng, env);
  return typeof a === "string" && env.accounts.includes(a) ? `0x${rng.hex(20)}` : a;
}

const CLOCK_METHODS = new Set(["evm_mine", "anvil_mine", "hardhat_mine", "evm_increaseTime"]);

/**
 * Junk that is no number in any reading: a time or snapshot argument that cannot move the chain's
 * clock to its end or revert the run's own blocks (the probes read them afterwards).
 */
function nonNumeric(rng: Rng): Json {
  return rng.pick<Json>(["x", "", "0x", "0xzz", null, true, [], {}, [1], { seconds: 1 }]);
}

/**
 * The dev methods (anvil's, Hardhat's aliases, the signers): writes to stray addresses, time and
 * mining in small steps, timestamps past the end of dev time (refused), and junk arguments. A
 * revert is only tried with ids no snapshot has. The end of time and reverts have their e2e
 * tests (test/e2e/devMethods.test.ts, devRevert.test.ts).
 */
function devCall(rng: Rng, env: CaseEnv): [string, Json[]] {
  const stray = () => strayAddress(rng, env);
  const small = () => rng.pick<Json>([0, 1, 2, "0x1", "0x3", 60, "0x3c"]);
  const tooLate = () =>
    rng.pick<Json>(["0x20000000000000", "0xffffffffffffffff", "0x10000000000000000", 2 ** 70]);
  return rng.weighted<() => [string, Json[]]>([
    [3, () => [rng.pick(["anvil_setBalance", "hardhat_setBalance"]), [stray(), quantity(rng)]]],
    [2, () => [rng.pick(["anvil_setNonce", "hardhat_setNonce"]), [stray(), quantity(rng)]]],
    [2, () => [rng.pick(["anvil_setCode", "hardhat_setCode"]), [stray(), hexData(rng)]]],
    [
      2,
      () => ["anvil_setStorageAt", [stray(), slot(rng), rng.chance(0.8) ? hash(rng) : slot(rng)]],
    ],
    [
      2,
      () => [
        rng.pick([
          "anvil_impersonateAccount",
          "anvil_stopImpersonatingAccount",
          "hardhat_impersonateAccount",
          "hardhat_stopImpersonatingAccount",
        ]),
        [stray()],
      ],
    ],
    [1, () => ["anvil_autoImpersonateAccount", [rng.pick<Json>([true, false, "true", 1, null])]]],
    [2, () => ["eth_sendTransaction", [callObject(rng, env)]]],
    [
      2,
      () => [
        rng.pick(["eth_sign", "personal_sign"]),
        rng.chance(0.5) ? [address(rng, env), hexData(rng)] : [hexData(rng), address(rng, env)],
      ],
    ],
    [1, () => ["eth_signTypedData_v4", [address(rng, env), junkValue(rng)]]],
    [1, () => ["eth_signTransaction", [callObject(rng, env)]]],
    [1, () => [rng.pick(["eth_accounts", "eth_requestAccounts", "evm_snapshot"]), []]],
    [1, () => ["evm_revert", [rng.chance(0.5) ? "0xffffffffff" : nonNumeric(rng)]]],
    [1, () => ["evm_increaseTime", [rng.chance(0.8) ? small() : nonNumeric(rng)]]],
    [
      1,
      () => [
        "evm_setNextBlockTimestamp",
        [
          rng.weighted<() => Json>([
            [2, tooLate],
            [1, () => nonNumeric(rng)],
            [1, small],
          ])(),
        ],
      ],
    ],
    [
      1,
      () => [
        rng.pick(["evm_mine", "anvil_mine", "hardhat_mine"]),
        rng.chance(0.5) ? [] : [small()],
      ],
    ],
    [
      1,
      () => [
        "evm_mine",
        [rng.chance(0.5) ? { blocks: small(), timestamp: tooLate() } : nonNumeric(rng)],
      ],
    ],
    [1, () => ["flashnode_depositTransaction", [junkValue(rng)]]],
  ])();
}

/** [method, params] of a call to one of the node's methods (or an unknown one). */
export function call(rng: Rng, env: CaseEnv): [string, Json[]] {
  const sel = () => selector(rng);
  const addr = () => address(rng, env);
  const pair = rng.weighted<() => [string, Json[]]>([
    [8, () => ["eth_getStorageAt", [addr(), slot(rng), sel()]]],
    [6, () => ["eth_getBlockReceipts", [sel()]]],
    [5, () => ["eth_getBalance", [addr(), sel()]]],
    [3, () => ["eth_getCode", [addr(), sel()]]],
    [3, () => ["eth_getTransactionCount", [addr(), sel()]]],
    [5, () => ["eth_getBlockByNumber", [sel(), rng.pick<Json>([true, false, "true", 1, null])]]],
    [2, () => ["eth_getBlockByHash", [hash(rng), rng.pick<Json>([true, false, 0])]]],
    [2, () => ["eth_getTransactionReceipt", [hash(rng)]]],
    [2, () => ["eth_getTransactionByHash", [hash(rng)]]],
    [
      3,
      () => {
        const a = addr();
        const slots = Array.from({ length: rng.chance(0.05) ? 1100 : rng.int(6) }, () => slot(rng));
        const req: Json = rng.chance(0.8)
          ? { [typeof a === "string" ? a : "0x"]: slots }
          : junkValue(rng);
        return ["eth_getStorageValues", [req, sel()]];
      },
    ],
    [
      6,
      () => {
        const p: Json[] = [callObject(rng, env), sel()];
        if (rng.chance(0.2)) p.push(overrides(rng, env));
        if (rng.chance(0.1)) p.push(blockOverrides(rng));
        return ["eth_call", p];
      },
    ],
    [3, () => ["eth_estimateGas", [callObject(rng, env), sel()]]],
    [2, () => ["eth_createAccessList", [callObject(rng, env), sel()]]],
    [4, () => ["eth_getLogs", [filterObject(rng, env)]]],
    [2, () => ["eth_newFilter", [filterObject(rng, env)]]],
    [
      3,
      () => [
        rng.pick(["eth_getFilterChanges", "eth_getFilterLogs", "eth_uninstallFilter"]),
        [filterId(rng)],
      ],
    ],
    [
      1,
      () => [
        rng.pick(["eth_newBlockFilter", "eth_newPendingTransactionFilter"]),
        rng.chance(0.5) ? [] : [rng.pick<Json>([true, false, "x"])],
      ],
    ],
    [
      3,
      () => [
        rng.pick([
          "eth_getBlockTransactionCountByNumber",
          "eth_getUncleCountByBlockNumber",
          "debug_getRawHeader",
          "debug_getRawBlock",
          "debug_getRawReceipts",
        ]),
        [sel()],
      ],
    ],
    [
      2,
      () => [
        rng.pick([
          "eth_getBlockTransactionCountByHash",
          "eth_getUncleCountByBlockHash",
          "debug_getRawTransaction",
        ]),
        [hash(rng)],
      ],
    ],
    [
      2,
      () => [
        rng.pick(["eth_getTransactionByBlockNumberAndIndex", "eth_getUncleByBlockNumberAndIndex"]),
        [sel(), quantity(rng)],
      ],
    ],
    [
      1,
      () => [
        rng.pick(["eth_getTransactionByBlockHashAndIndex", "eth_getUncleByBlockHashAndIndex"]),
        [hash(rng), quantity(rng)],
      ],
    ],
    [4, () => ["eth_sendRawTransaction", [rawTx(rng)]]],
    [
      1,
      () => [
        "eth_sendRawTransactionSync",
        [rawTx(rng), rng.pick<Json>([1, 10, "0x10", -1, 1e12, "x", null])],
      ],
    ],
    [
      2,
      () => [
        "eth_feeHistory",
        [
          quantity(rng),
          sel(),
          rng.pick<Json>([
            [25, 50, 75],
            [],
            [90, 10],
            [-1, 101],
            Array.from({ length: 200 }, (_, i) => i / 2),
            "x",
            null,
          ]),
        ],
      ],
    ],
    [
      4,
      () => [
        rng.pick([
          "eth_chainId",
          "eth_blockNumber",
          "eth_gasPrice",
          "eth_maxPriorityFeePerGas",
          "eth_syncing",
          "eth_baseFee",
          "eth_blobBaseFee",
          "net_version",
          "web3_clientVersion",
        ]),
        [],
      ],
    ],
    [
      2,
      () => ["eth_getProof", [addr(), Array.from({ length: rng.int(4) }, () => slot(rng)), sel()]],
    ],
    [2, () => ["eth_simulateV1", [simulateOptions(rng, env), sel()]]],
    [
      2,
      () => [
        rng.pick(["debug_traceBlockByNumber", "debug_traceBlockByHash", "debug_traceTransaction"]),
        [rng.chance(0.5) ? sel() : hash(rng), traceConfig(rng)],
      ],
    ],
    [1, () => ["debug_traceCall", [callObject(rng, env), sel(), traceConfig(rng)]]],
    [
      2,
      () => [
        rng.pick([
          "eth_config",
          "eth_capabilities",
          "txpool_status",
          "txpool_content",
          "txpool_inspect",
        ]),
        [],
      ],
    ],
    [1, () => ["txpool_contentFrom", [addr()]]],
    [
      1,
      () => [
        "testing_buildBlockV1",
        [
          hash(rng),
          payloadAttributes(rng),
          rng.pick<Json>([[], null, [rawTx(rng)], "x"]),
          rng.pick<Json>(["0x", "0x01", "x", null]),
        ],
      ],
    ],
    [4, () => [rng.pick(UNKNOWN_METHODS), [sel()]]],
    [6, () => devCall(rng, env)],
  ])();
  const [method, params] = pair;
  // Arity games: a missing, an extra or a null argument. No extra one for the methods that move
  // the dev clock: junk as anvil_mine's interval would run it to the end of dev time.
  const r = rng.int(20);
  if (r === 0 && params.length > 0) params.pop();
  else if (r === 1 && !CLOCK_METHODS.has(method)) params.push(junkValue(rng));
  else if (r === 2 && params.length > 0) params[rng.int(params.length)] = null;
  return [method, params];
}

function plainId(rng: Rng): number | string | null {
  return rng.weighted<() => number | string | null>([
    [6, () => rng.int(1_000_000)],
    [2, () => `id-${rng.hex(4)}`],
    [1, () => null],
    [1, () => ""],
  ])();
}

/** A well-formed call envelope (params sometimes omitted or null). */
export function envelope(rng: Rng, env: CaseEnv, id: Json | undefined): Json {
  const [method, params] = call(rng, env);
  const o: Record<string, Json> = { jsonrpc: "2.0" };
  if (id !== undefined) o.id = id;
  o.method = method;
  const p = rng.int(20);
  if (p === 0) return o;
  o.params = p === 1 ? null : params;
  return o;
}

export function validCall(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const notification = rng.chance(0.03);
  const id = notification ? undefined : plainId(rng);
  const v = envelope(rng, env, id);
  const method = (v as { method?: unknown }).method;
  const variant = typeof method === "string" && method.length < 40 ? method : "other";
  return jsonPost(
    { index, kind: "valid-call", variant },
    pickRoute(rng, env),
    Buffer.from(toJson(v)),
    {
      ...(id === undefined ? {} : { expectId: { value: id } }),
    },
  );
}
