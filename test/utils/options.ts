import { frontendOptions } from "../../src/cli/frontendOptions.ts";
import { resolveOptions } from "../../src/cli/options.ts";
import { createLogger, type Logger } from "../../src/log/logger.ts";
import type { FrontendOptions } from "../../src/node/frontend.ts";

export const TEST_API_KEY = "test-key-0001";

/**
 * Defaults as a user of `command` gets them, on an ephemeral port, without the public rate limit
 * (tests hammer).
 */
export function testFrontendOptions(
  extra: string[] = [],
  command: "dev" | "serve" | "replica" = "dev",
): FrontendOptions {
  return frontendOptions(
    resolveOptions(
      command,
      ["--port", "0", "--rate-limit", "0", "--api-key", TEST_API_KEY, ...extra],
      {},
    ).values,
  );
}

export const silentLogger: Logger = createLogger("silent");
