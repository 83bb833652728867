import { createRequire } from "node:module";

const pkg = createRequire(import.meta.url)("../package.json") as { version: string };

export const VERSION: string = pkg.version;

/** web3_clientVersion, in the name/version/platform/runtime shape clients expect. */
export const CLIENT_VERSION = `flashnode/v${VERSION}/${process.platform}-${process.arch}/node${process.versions.node}`;
