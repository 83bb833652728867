// Hardhat 3's configuration for test/e2e/devHardhat.test.ts: one HTTP network, the node under
// test (its URL from FLASHNODE_URL), and Hardhat's network helpers (time.increaseTo & co.).
import hardhatNetworkHelpers from "@nomicfoundation/hardhat-network-helpers";

// biome-ignore lint/style/noDefaultExport: Hardhat reads its configuration from the default export.
export default {
  plugins: [hardhatNetworkHelpers],
  networks: {
    flashnode: { type: "http", url: process.env.FLASHNODE_URL ?? "http://127.0.0.1:8545" },
  },
};
