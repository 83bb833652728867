// Machines for end-to-end tests of faults across a network: each a Linux network namespace
// (`ip netns`) with one veth link to a switch (a bridge in a namespace of its own), and an
// address on that link only; the test process reaches them through one more veth pair whose
// host end has an address of the same subnet. A machine's link can be cut (link down) and
// brought back. Needs root and iproute2's `ip`.
//
// Names start with `fnt<pid>-` (the test process's pid), so that a run removes what a crashed
// run left (its pid gone) and never what a running one uses.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { processAlive } from "../../src/util/processAlive.ts";

const PREFIX = "fnt";

function ip(args: readonly string[]): { ok: boolean; out: string } {
  const r = spawnSync("ip", args, { encoding: "utf8", timeout: 10_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ?? ""}` };
}

function must(args: readonly string[]): string {
  const r = ip(args);
  if (!r.ok) throw new Error(`ip ${args.join(" ")}: ${r.out.trim()}`);
  return r.out;
}

/** Ends every process in namespace `ns`, removes it, and the host end of its run's link. */
function removeNamespace(ns: string): void {
  for (const pid of ip(["netns", "pids", ns])
    .out.split(/\s+/)
    .filter((p) => /^\d+$/.test(p))) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  ip(["netns", "del", ns]);
}

function namespaces(): string[] {
  return ip(["netns", "list"])
    .out.split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => n.startsWith(PREFIX));
}

/** Removes the namespaces and host links of runs whose process is gone. */
function removeLeftovers(): void {
  const dead = new Set<string>();
  for (const ns of namespaces()) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(ns)?.[1]);
    if (Number.isInteger(pid) && !processAlive(pid)) {
      removeNamespace(ns);
      dead.add(String(pid));
    }
  }
  for (const pid of dead) ip(["link", "del", `${PREFIX}${pid}h`]);
}

/**
 * Why this machine cannot run namespace tests (not root, no `ip`, namespaces refused), or
 * undefined when it can: a probe namespace is created and removed.
 */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== "linux") return "network namespaces are Linux's";
  if (process.getuid?.() !== 0) return "ip netns needs root";
  const version = ip(["-V"]);
  if (!version.ok) return `no ip command (iproute2): ${version.out.trim()}`;
  const probe = `${PREFIX}${process.pid}-probe`;
  const added = ip(["netns", "add", probe]);
  ip(["netns", "del", probe]);
  return added.ok ? undefined : `ip netns add failed: ${added.out.trim()}`;
}

export type Network = {
  /** The test process's own address on the switch. */
  readonly host: string;
  /** Machine `name`'s address. */
  address(name: string): string;
  /** Runs `command` on machine `name` (the child is the command itself: ip execs it). */
  spawn(name: string, command: string, args: readonly string[]): ChildProcess;
  /** Cuts machine `name` off the switch (its link down), or connects it again. */
  cut(name: string): void;
  restore(name: string): void;
  /** Ends every process on the machines and removes them, and the switch. */
  remove(): void;
};

/** A /24 of 10.231.0.0/16 that no address or route of this machine uses. */
function freeSubnet(): string {
  const used = `${must(["-4", "addr"])}\n${must(["-4", "route"])}`;
  for (let i = 0; i < 250; i++) {
    const third = (process.pid + i) % 250;
    const subnet = `10.231.${third}.`;
    if (!used.includes(subnet)) return subnet;
  }
  throw new Error("no free /24 under 10.231.0.0/16");
}

/** Machines `names` on one switch, the test process on it too (at .1; machines from .11). */
export function createNetwork(names: readonly string[]): Network {
  removeLeftovers();
  const run = `${PREFIX}${process.pid}`;
  const ns = (name: string) => `${run}-${name}`;
  const sw = ns("sw");
  const hostLink = `${run}h`;
  const subnet = freeSubnet();
  const addresses = new Map(names.map((n, i) => [n, `${subnet}${11 + i}`]));
  const children = new Set<ChildProcess>();
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    for (const n of names) removeNamespace(ns(n));
    removeNamespace(sw);
    ip(["link", "del", hostLink]);
  };
  // Whatever the test manages to do, nothing is left when its process exits.
  process.once("exit", remove);
  try {
    must(["netns", "add", sw]);
    must(["-n", sw, "link", "add", "br0", "type", "bridge"]);
    must(["-n", sw, "link", "set", "br0", "up"]);
    must(["link", "add", hostLink, "type", "veth", "peer", "name", "host", "netns", sw]);
    must(["-n", sw, "link", "set", "host", "master", "br0", "up"]);
    must(["addr", "add", `${subnet}1/24`, "dev", hostLink]);
    must(["link", "set", hostLink, "up"]);
    names.forEach((name, i) => {
      must(["netns", "add", ns(name)]);
      must(["-n", ns(name), "link", "set", "lo", "up"]);
      const port = `p${i}`;
      must(["-n", ns(name), "link", "add", "eth0", "type", "veth", "peer", "name", port]);
      must(["-n", ns(name), "link", "set", port, "netns", sw]);
      must(["-n", sw, "link", "set", port, "master", "br0", "up"]);
      must(["-n", ns(name), "addr", "add", `${addresses.get(name)}/24`, "dev", "eth0"]);
      must(["-n", ns(name), "link", "set", "eth0", "up"]);
    });
  } catch (e) {
    remove();
    throw e;
  }
  const known = (name: string) => {
    if (!addresses.has(name)) throw new Error(`no machine ${name}`);
    return ns(name);
  };
  return {
    host: `${subnet}1`,
    address: (name) => {
      known(name);
      return addresses.get(name)!;
    },
    spawn(name, command, args) {
      const child = spawn("ip", ["netns", "exec", known(name), command, ...args], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.add(child);
      child.once("exit", () => children.delete(child));
      return child;
    },
    cut: (name) => {
      must(["-n", known(name), "link", "set", "eth0", "down"]);
    },
    restore: (name) => {
      must(["-n", known(name), "link", "set", "eth0", "up"]);
    },
    remove,
  };
}
