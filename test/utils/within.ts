// A failure deadline for a wait on an event: a test that waits for something that never comes
// fails with what it waited for, instead of hanging until the whole file is killed.

/** Generous: the machine may be loaded, and nothing waits it out when things work. */
export const WAIT_MS = 30_000;

/** `p`, or a rejection naming `what` if it has not settled within `ms`. */
export function within<T>(p: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
