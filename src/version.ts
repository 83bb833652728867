// Inlined by the build (dist/), read by tsx from the sources.
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** web3_clientVersion, in the name/version/platform/runtime shape clients expect. */
export const CLIENT_VERSION = `flashnode/v${VERSION}/${process.platform}-${process.arch}/node${process.versions.node}`;

/**
 * `flashnode dev`'s web3_clientVersion: it says it takes anvil's methods, in the prefix tools
 * read ("anvil…": Hardhat's network helpers refuse a node whose version does not start with
 * hardhat, zksync or anvil), then what it is.
 */
export const DEV_CLIENT_VERSION = `anvil-compatible/${CLIENT_VERSION}`;
