// A value read once per synchronous run: until the run's microtask checkpoint, or until
// `version()` moves. For state that cannot change within a run (lmdb-js's read snapshot, a
// position every call of one request may share), so a batch's calls read it once, not each.

export function perRun<T>(read: () => T, version: () => number = () => 0): () => T {
  let value: T;
  let at = -1; // the version the value was read at; -1: none this run
  const forget = () => {
    at = -1;
  };
  return () => {
    const v = version();
    if (v === at) return value;
    value = read();
    if (at === -1) queueMicrotask(forget);
    at = v;
    return value;
  };
}
