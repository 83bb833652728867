// A tiny EVM assembler for tests that need contracts without a compiler: opcode names, `0x…`
// literals (pushed with the shortest PUSH), `name:` labels and `@name` (PUSH2 of a label).
import { opName } from "../../src/exec/trace/opcodes.ts";

const CODES = new Map<string, number>();
for (let op = 0; op < 256; op++) CODES.set(opName(op), op);

function hex(n: number, bytes: number): string {
  return n.toString(16).padStart(bytes * 2, "0");
}

/** Bytecode (hex, no prefix) for a list of tokens. */
export function asm(tokens: readonly string[]): string {
  const labels = new Map<string, number>();
  const size = (t: string) => {
    if (t.endsWith(":")) return 0;
    if (t.startsWith("@")) return 3;
    if (t.startsWith("0x")) return 1 + Math.max(1, Math.ceil((t.length - 2) / 2));
    return 1;
  };
  let pc = 0;
  for (const t of tokens) {
    if (t.endsWith(":")) labels.set(t.slice(0, -1), pc);
    pc += size(t);
  }
  let out = "";
  for (const t of tokens) {
    if (t.endsWith(":")) continue;
    if (t.startsWith("@")) {
      const at = labels.get(t.slice(1));
      if (at === undefined) throw new Error(`unknown label ${t}`);
      out += `61${hex(at, 2)}`;
    } else if (t.startsWith("0x")) {
      const digits = t.slice(2).length % 2 === 0 ? t.slice(2) : `0${t.slice(2)}`;
      const bytes = Math.max(1, digits.length / 2);
      out += hex(0x5f + bytes, 1) + (digits === "" ? "00" : digits);
    } else {
      const op = CODES.get(t);
      if (op === undefined) throw new Error(`unknown opcode ${t}`);
      out += hex(op, 1);
    }
  }
  return out;
}

/** Creation code that deploys `runtime` (hex, no prefix) as is. */
export function deployCode(runtime: string): `0x${string}` {
  return `0x61${hex(runtime.length / 2, 2)}80600c6000396000f3${runtime}`;
}
