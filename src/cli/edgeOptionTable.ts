// The options of the HTTP edge every node role serves: listening, keys, rate limits, policy, CORS
// and the request and call limits (gathered into optionTable.ts).
import { NODE, type OptionDef } from "./optionTypes.ts";

const GENERATED_KEY = "none given: one generated for the run";
const LOOPBACK_LIMITED = "a proxy in front makes every client local";
const NO_CORS = "none by default: no CORS headers";

export const EDGE_OPTIONS: readonly OptionDef[] = [
  {
    name: "host",
    kind: "host",
    commands: NODE,
    default: "127.0.0.1",
    help: "listen address: an IP address or a host name (0.0.0.0: every interface)",
  },
  {
    name: "port",
    kind: "int",
    commands: NODE,
    default: 8545,
    max: 65535,
    help: "listen port, 0 to 65535 (0 = any free port)",
  },
  {
    name: "api-key",
    kind: "list",
    commands: NODE,
    env: "FLASHNODE_API_KEYS",
    help: "dedicated endpoint key, 8-128 characters of A-Z a-z 0-9 _ -, served at /rpc/<key> (repeatable; env: comma-separated); printed at start",
    commandHelp: {
      dev: "none given: local-dev-key on a loopback --host, else one generated for the run",
      serve: GENERATED_KEY,
      replica: GENERATED_KEY,
      follow: GENERATED_KEY,
    },
  },
  {
    name: "rate-limit",
    kind: "int",
    commands: NODE,
    default: 200,
    help: "public endpoint: calls per second per client address (0 = unlimited); a batch counts its calls",
  },
  {
    name: "rate-burst",
    kind: "int",
    commands: NODE,
    default: 400,
    help: "public endpoint: token bucket size per client address",
  },
  {
    name: "rate-limit-loopback",
    kind: "boolean",
    commands: NODE,
    default: true,
    commandDefaults: { dev: false },
    help: "the public rate limit applies to clients on this machine (127.0.0.0/8, ::1) too",
    commandHelp: {
      dev: "by default they are unlimited (a local node)",
      serve: LOOPBACK_LIMITED,
      replica: LOOPBACK_LIMITED,
      follow: LOOPBACK_LIMITED,
    },
  },
  {
    name: "key-rate-limit",
    kind: "int",
    commands: NODE,
    default: 0,
    help: "dedicated endpoints: calls per second per key (0 = unlimited); per-key limits in --key-limits",
  },
  {
    name: "key-limits",
    kind: "json",
    commands: NODE,
    help: 'per-key limits {"<key>":{"rate":N,"burst":N}} for keys given with --api-key (overrides --key-rate-limit for those keys)',
  },
  {
    name: "policy",
    kind: "json",
    commands: NODE,
    help: 'method policy {"public":[rules],"dedicated":[rules]}, rule = {"method","action":"allow"|"deny","selectors"?}, first match wins (a method not served is refused at start). A tier\'s rules come before its defaults (public: deny eth_getBlockReceipts), which stay; {"public":{"rules":[…],"replace":true}} replaces them',
  },
  {
    name: "cors",
    kind: "list",
    commands: NODE,
    commandDefaults: { dev: ["*"] },
    help: 'allowed CORS origins ("*" for any)',
    commandHelp: {
      dev: "by default any origin, as anvil (--cors narrows it)",
      serve: NO_CORS,
      replica: NO_CORS,
      follow: NO_CORS,
    },
  },
  {
    name: "body-limit",
    kind: "int",
    commands: NODE,
    default: 5 * 1024 * 1024,
    help: "max request body bytes (HTTP 413 above)",
  },
  { name: "batch-limit", kind: "int", commands: NODE, default: 1000, help: "max calls in a batch" },
  {
    name: "response-limit",
    kind: "int",
    commands: NODE,
    default: 25_000_000,
    help: "max bytes of a batch's results; later calls get -32003",
  },
  {
    name: "request-timeout",
    kind: "duration",
    commands: NODE,
    default: "30s",
    help: "per request; past it the answer is -32002 request timed out",
  },
  {
    name: "header-timeout",
    kind: "duration",
    commands: NODE,
    default: "10s",
    help: "time a client has to send its request headers",
  },
  {
    name: "read-timeout",
    kind: "duration",
    commands: NODE,
    default: "30s",
    help: "time a client has to send a whole request",
  },
  {
    name: "idle-timeout",
    kind: "duration",
    commands: NODE,
    default: "120s",
    help: "keep-alive connections idle longer are closed",
  },
  {
    name: "max-connections",
    kind: "int",
    commands: NODE,
    default: 1024,
    help: "connections beyond this are refused",
  },
  {
    name: "rpc-gascap",
    kind: "int",
    commands: NODE,
    default: 50_000_000,
    help: "most gas eth_call, eth_estimateGas and eth_createAccessList may use; a request's gas above it is lowered to it (0 = no cap; geth's --rpc.gascap)",
  },
  {
    name: "rpc-evmtimeout",
    kind: "duration",
    commands: NODE,
    default: "5s",
    help: "eth_call is aborted past this (-32000 execution aborted (timeout = 5s)); 0 = no limit (geth's --rpc.evmtimeout; bare number: seconds)",
  },
];
