// The registry this project installs from serves only the packages for the platforms it hosts,
// so `npm install` leaves other platforms' optional binaries out of package-lock.json and
// `npm ci` then refuses the lock as out of sync. This adds a placeholder entry, marked with the
// os/cpu/libc its name implies, for every declared-but-absent optional dependency; npm skips
// those on this platform without fetching them.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;
const osNames = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "netbsd",
  "openbsd",
  "sunos",
  "win32",
  "aix",
  "openharmony",
];
const cpuNames = [
  "arm64",
  "x64",
  "ia32",
  "arm",
  "riscv64",
  "s390x",
  "ppc64",
  "loong64",
  "mips64el",
  "wasm32",
];
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === "" ? "node_modules" : `${path}/node_modules`;
    const hoisted = `node_modules/${name}`;
    if (packages[`${base}/${name}`] || packages[hoisted]) continue;
    const parts = name.split(/[/-]/);
    const os = osNames.find((o) => parts.includes(o));
    const cpu = cpuNames.find((c) => parts.includes(c));
    const placeholder = { version: String(version).replace(/^[\^~]/, ""), optional: true };
    if (entry.dev) placeholder.dev = true;
    placeholder.os = [os ?? "none"];
    if (cpu) placeholder.cpu = [cpu];
    if (parts.includes("musl")) placeholder.libc = ["musl"];
    packages[hoisted] = placeholder;
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: ${added} placeholder entries added`);
