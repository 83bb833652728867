// Server limits, geth defaults (node/defaults.go, rpc/http.go, rpc/json.go). 0 disables a
// batch limit, as in geth.

/** Max calls in one batch; larger batches get a single "batch too large" error. */
export const BATCH_REQUEST_LIMIT = 1000;
/** Max summed bytes of results/errors in one batch before the rest get -32003. */
export const BATCH_RESPONSE_MAX_SIZE = 25_000_000;
/** Max HTTP request body bytes (Content-Length above it: 413; chunked bodies are cut). */
export const HTTP_BODY_LIMIT = 5 * 1024 * 1024;
/** Max byte length of a method name. */
export const MAX_METHOD_NAME_LENGTH = 2048;
/** Go's encoding/json nesting limit; deeper input is a parse error. */
export const MAX_JSON_NESTING_DEPTH = 10_000;

/** geth rpc.DefaultHTTPTimeouts. */
export const HTTP_READ_TIMEOUT_MS = 30_000;
export const HTTP_READ_HEADER_TIMEOUT_MS = 30_000;
export const HTTP_WRITE_TIMEOUT_MS = 30_000;
export const HTTP_IDLE_TIMEOUT_MS = 120_000;
/** geth answers -32002 this long before the HTTP write timeout would cut the connection. */
export const RPC_REQUEST_TIMEOUT_MS = HTTP_WRITE_TIMEOUT_MS - 100;
