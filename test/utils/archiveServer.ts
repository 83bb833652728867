import { type RunningServer, startArchiveServer } from "../../src/node/archiveServer.ts";
import { importFixtureChain } from "./fixtures.ts";
import { silentLogger, testFrontendOptions } from "./options.ts";

/** The fixture chain imported and served over HTTP on an ephemeral port. */
export async function fixtureServer(label: string): Promise<RunningServer> {
  return startArchiveServer({
    datadir: importFixtureChain(label),
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
}
