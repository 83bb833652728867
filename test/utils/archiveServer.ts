import type { RunningNode } from "../../src/node/plan.ts";
import { importFixtureChain } from "./fixtures.ts";
import { startArchiveServer } from "./nodes.ts";
import { silentLogger, testFrontendOptions } from "./options.ts";

/** The fixture chain imported and served over HTTP on an ephemeral port. */
export async function fixtureServer(label: string): Promise<RunningNode> {
  return startArchiveServer({
    datadir: importFixtureChain(label),
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
}
