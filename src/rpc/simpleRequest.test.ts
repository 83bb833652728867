import assert from "node:assert/strict";
import { test } from "node:test";
import { readSimpleBatch, readSimpleRequest } from "./simpleRequest.ts";
import { type Envelope, scanEnvelope } from "./wire.ts";

/** What the general path makes of one message: JSON.parse and the envelope scanner. */
function general(text: string) {
  const msg = JSON.parse(text) as Record<string, unknown>;
  const env: Envelope = {
    version: "",
    id: undefined,
    method: "",
    paramsKey: undefined,
    hasResultOrError: false,
  };
  const start = text.search(/\S/);
  assert.ok(scanEnvelope(text, start, 0, env) > 0);
  return { env, params: env.paramsKey === undefined ? undefined : msg[env.paramsKey] };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const ACCEPTED = [
  '{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":["0x5fbdb2315678afecb367f032d93f642f64180aa3","0x1","latest"]}',
  // viem and ethers: other key orders, booleans, no params, empty params, whitespace.
  '{"method":"eth_getBlockByNumber","params":["latest",false],"id":42,"jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":0,"method":"eth_chainId"}',
  '{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}',
  ' { "jsonrpc" : "2.0" ,\n "id" : 3 , "method":"eth_call" , "params" : [ null , true ] } \n',
  '{"jsonrpc":"1.0","id":123456789012345,"method":"x","params":["ü€𝄞"]}',
];

const REFUSED = [
  // Escapes, control characters, other value kinds: the general path decides.
  '{"jsonrpc":"2.0","id":1,"method":"eth_ch\\u0061inId"}',
  '{"jsonrpc":"2.0","id":1,"method":"a\\"b"}',
  '{"jsonrpc":"2.0","id":1,"method":"a\tb"}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":[{"to":"0x"}]}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":[[]]}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":{}}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":null}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}',
  // Ids geth echoes as written.
  '{"jsonrpc":"2.0","id":1.0,"method":"m"}',
  '{"jsonrpc":"2.0","id":1e2,"method":"m"}',
  '{"jsonrpc":"2.0","id":01,"method":"m"}',
  '{"jsonrpc":"2.0","id":-1,"method":"m"}',
  '{"jsonrpc":"2.0","id":"1","method":"m"}',
  '{"jsonrpc":"2.0","id":null,"method":"m"}',
  '{"jsonrpc":"2.0","id":1234567890123456,"method":"m"}',
  // Keys: case folding, duplicates, others, missing ones.
  '{"JSONRPC":"2.0","id":1,"method":"m"}',
  '{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}',
  '{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":[],"params":["x"]}',
  '{"jsonrpc":"2.0","id":1,"method":"m","extra":1}',
  '{"jsonrpc":"2.0","id":1,"method":"m","result":"0x"}',
  '{"jsonrpc":"2.0","method":"m"}',
  '{"id":1,"method":"m"}',
  '{"jsonrpc":"2.0","id":1}',
  '{"jsonrpc":2,"id":1,"method":"m"}',
  '{"jsonrpc":"2.0","id":1,"method":3}',
  // Syntax: broken, unterminated, trailing bytes, empty.
  '{"jsonrpc":"2.0","id":1,"method":"m",}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":["a",]}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":["a" "b"]}',
  '{"jsonrpc":"2.0","id":1,"method":"m"',
  '{"jsonrpc":"2.0","id":1,"method":"m',
  '{"jsonrpc":"2.0","id":1,"method":"m"}x',
  '{"jsonrpc":"2.0","id":1,"method":"m"}{}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":[tru]}',
  '{"jsonrpc":"2.0","id":1,"method":"m","params":[nul]}',
  "{}",
  "{",
];

test("the requests clients send are read in one pass, exactly as the general path reads them", () => {
  for (const text of ACCEPTED) {
    const fast = readSimpleRequest(text, text.search(/\S/));
    assert.ok(fast !== undefined, text);
    assert.deepEqual(fast, general(text), text);
  }
});

test("everything else is left to the general path", () => {
  for (const text of REFUSED) {
    assert.equal(readSimpleRequest(text, text.search(/\S/)), undefined, text);
  }
});

test("batches: read whole when every element is of the shape, else left whole to the general path", () => {
  const batch = `[${ACCEPTED.join(",")}]`;
  const fast = readSimpleBatch(batch, 0);
  assert.ok(fast !== undefined);
  assert.deepEqual(
    fast,
    ACCEPTED.map((t) => general(t)),
  );
  assert.deepEqual(readSimpleBatch(` [ ${ACCEPTED[0]} ] \n`, 1)?.length, 1);
  for (const bad of REFUSED)
    assert.equal(readSimpleBatch(`[${ACCEPTED[0]},${bad}]`, 0), undefined, bad);
  for (const bad of ["[]", `[${ACCEPTED[0]}`, `[${ACCEPTED[0]},]`, `[${ACCEPTED[0]}]]`, "[1]"])
    assert.equal(readSimpleBatch(bad, 0), undefined, bad);
});

test("random mutations of a request: whatever the fast path accepts, JSON.parse and the scanner read the same", () => {
  const base = ACCEPTED[0]!;
  const alphabet = ' "\\{}[],:0123456789.e-tfnulraxX\u0001\u00e9';
  let seed = 12345;
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    let text = base;
    for (let m = 0, n = 1 + rand(3); m < n; m++) {
      const p = rand(text.length + 1);
      const op = rand(3);
      const ch = alphabet[rand(alphabet.length)]!;
      if (op === 0) text = text.slice(0, p) + ch + text.slice(p);
      else if (op === 1) text = text.slice(0, p) + text.slice(p + 1);
      else text = text.slice(0, p) + ch + text.slice(p + 1);
    }
    const start = text.search(/\S/);
    if (start < 0) continue;
    const fast = readSimpleRequest(text, start);
    if (fast === undefined) continue;
    accepted++;
    assert.ok(parses(text), `accepted invalid JSON: ${text}`);
    assert.deepEqual(fast, general(text), text);
  }
  assert.ok(accepted > 1000, `only ${accepted} mutations stayed in the shape`);
});
