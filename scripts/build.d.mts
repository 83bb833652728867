// Types of scripts/build.mjs, for the TypeScript that imports it (the smoke tests).
/** Compiles src/ to dist/ (see build.mjs). */
export function build(options?: { readonly quiet?: boolean }): Promise<void>;
/** Whether dist/ was built from the sources as they are now. */
export function upToDate(): boolean;
