import { openKvEnv } from "../src/store/lmdb.ts";
const env = openKvEnv("/tmp/lmdbtest" + Date.now());
const t = env.table("meta");
env.writeAtomically(() => { t.put(Buffer.from("a"), Buffer.from("1")); t.put(Buffer.from("b"), Buffer.from("2")); });
env.writeAtomically(() => { t.clear(); env.writeAtomically(() => t.put(Buffer.from("c"), Buffer.from("3"))); });
console.log(t.get(Buffer.from("a")), t.get(Buffer.from("c")));
try { env.writeAtomically(() => { t.clear(); t.put(Buffer.from("d"), Buffer.from("4")); throw new Error("x"); }); } catch (e) { console.log("threw", (e as Error).message); }
console.log(t.get(Buffer.from("c")), t.get(Buffer.from("d")));
const env2 = openKvEnv(env.path.replace(/\/archive$/, ""));
console.log("second open same obj?", env2 === env, env2.table("meta").get(Buffer.from("c")));
await env2.close();
console.log("after closing second:", t.get(Buffer.from("c")));
