// Waits that a stop ends: a start that waits on a peer (a NATS server, an upstream) gives up as
// soon as the node is asked to stop, instead of when the peer answers.
import { StopRequested } from "./errors.ts";

/** Why a wait ended: the signal's reason when it is an error, else a StopRequested. */
function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new StopRequested("stopped");
}

/**
 * `p`, or a rejection as soon as `signal` aborts. What `p` yields after that is handed to
 * `discard` (a part that started after all is stopped).
 */
export function unlessAborted<T>(
  p: Promise<T>,
  signal: AbortSignal | undefined,
  discard?: (value: T) => unknown,
): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) {
    p.then(discard, () => {});
    return Promise.reject(reasonOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.then(discard, () => {});
      reject(reasonOf(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        if (!signal.aborted) resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Resolves after `ms`, or at once when `signal` aborts (a retry loop's pause). */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
