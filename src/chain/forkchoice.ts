// Where `safe` and `finalized` point. An imported archive uses the forkchoice it was given
// (`import --forkchoice`), else the head: an archive without consensus input has nothing older
// to call final. The dev chain has no consensus layer either, so its tags trail the head by
// fixed depths, as anvil's do (32 and 64 blocks by default).

/** The tags an archive stores (`import --forkchoice`); unset means "the head". */
export type Forkchoice = {
  readonly safe: number | undefined;
  readonly finalized: number | undefined;
};

export type SafeAndFinalized = { readonly safe: number; readonly finalized: number };

export const DEFAULT_SAFE_DEPTH = 32;
export const DEFAULT_FINALIZED_DEPTH = 64;

/** Stored forkchoice, each tag falling back to the head and never above it. */
export function storedForkchoice(read: () => Forkchoice): (head: number) => SafeAndFinalized {
  return (head) => {
    const fc = read();
    return {
      safe: Math.min(fc.safe ?? head, head),
      finalized: Math.min(fc.finalized ?? head, head),
    };
  };
}

/** Tags that trail the head by fixed depths (saturating at genesis). */
export function trailingForkchoice(
  safeDepth: number,
  finalizedDepth: number,
): (head: number) => SafeAndFinalized {
  if (finalizedDepth < safeDepth)
    throw new RangeError("the finalized depth must be at least the safe depth");
  return (head) => ({
    safe: Math.max(0, head - safeDepth),
    finalized: Math.max(0, head - finalizedDepth),
  });
}
