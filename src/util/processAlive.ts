/**
 * Whether process `pid` exists: signal 0 checks without signalling. EPERM means it exists but
 * belongs to another user.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
