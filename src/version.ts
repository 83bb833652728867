// Inlined by the build (dist/), read by tsx from the sources.
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** web3_clientVersion, in the name/version/platform/runtime shape clients expect. */
export const CLIENT_VERSION = `flashnode/v${VERSION}/${process.platform}-${process.arch}/node${process.versions.node}`;
