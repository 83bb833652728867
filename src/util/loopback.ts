// Addresses of this machine only: who a local node trusts (src/edge) and where it listens
// (src/cli).

/** 127.0.0.0/8 or ::1, also IPv4-mapped (::ffff:127.0.0.1): a client on this machine. */
export function isLoopback(address: string): boolean {
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}
