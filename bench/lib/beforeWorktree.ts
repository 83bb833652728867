// The "before" side of a bench: a git worktree of another commit under the OS temporary folder,
// installed with `npm ci` (which builds its dist/), kept between runs by commit hash so a second
// run starts at once. Only its CLI is run (bin/flashnode.js), so the bench measures any commit
// through the interfaces every commit has: the command line, JSON-RPC, /proc.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
/** Written last: a worktree without it was interrupted while being made, and is made again. */
const READY = ".flashnode-bench-ready";

export type BeforeCheckout = {
  readonly commit: string;
  readonly dir: string;
  readonly bin: string;
};

/** The checkout of `ref` (a commit, branch or tag of this repository), made if not cached. */
export function beforeCheckout(ref: string, log: (line: string) => void): BeforeCheckout {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  const commit = git("rev-parse", "--verify", `${ref}^{commit}`);
  const dir = join(tmpdir(), "flashnode-bench-before", commit);
  const bin = join(dir, "bin/flashnode.js");
  if (existsSync(join(dir, READY))) {
    log(`before: ${ref} = ${commit.slice(0, 12)}, cached at ${dir}`);
    return { commit, dir, bin };
  }
  log(`before: ${ref} = ${commit.slice(0, 12)}: making a worktree at ${dir} and running npm ci`);
  // A worktree whose folder was deleted (a cleaned tmp) is still registered: prune it first.
  git("worktree", "prune");
  if (existsSync(dir)) {
    execFileSync("git", ["worktree", "remove", "--force", dir], { cwd: ROOT, stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  }
  git("worktree", "add", "--detach", dir, commit);
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (!existsSync(bin)) throw new Error(`${ref}: no bin/flashnode.js in that commit`);
  writeFileSync(join(dir, READY), `${commit}\n`);
  return { commit, dir, bin };
}
