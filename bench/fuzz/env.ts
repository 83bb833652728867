// What the generators need to know about the target (its dedicated key, how it refuses unknown
// keys), found by asking it before the fuzz starts.
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { Rng } from "./cases/rng.ts";
import type { CaseEnv } from "./cases/types.ts";
import { only127 } from "./options.ts";
import { post, type Target } from "./target.ts";
import { isObject } from "./util.ts";

export async function detectEnv(
  target: Target,
  seed: number,
  dedicatedUrl: string | undefined,
): Promise<{ env: CaseEnv; notes: string[] }> {
  const notes: string[] = [];
  const probeBody = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}';
  const bad = await post(target, `/rpc/${new Rng(seed, 0x7ffffffe).hex(16)}`, probeBody);
  if (bad.status !== 401)
    notes.push(
      `POST /rpc/<unknown key> answers ${bad.status} (dedicated endpoint missing?); expecting ${bad.status} for rpc-key cases`,
    );
  let dedicatedPath: string | undefined;
  if (dedicatedUrl !== undefined) {
    const u = only127(dedicatedUrl, "the dedicated URL");
    const a = await post(target, u.pathname, probeBody);
    if (a.status === 200 && isObject(a.json) && "result" in a.json) dedicatedPath = u.pathname;
    else notes.push(`dedicated URL ${u.pathname} answers HTTP ${a.status}: not used`);
  } else notes.push("no dedicated URL (none printed, no --dedicated-url): public endpoint only");
  return {
    env: {
      dedicatedPath,
      badKeyStatus: bad.status,
      accounts: devAccounts(10).map((a) => a.address),
    },
    notes,
  };
}
