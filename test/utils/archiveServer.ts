import { type RunningServer, startArchiveServer } from "../../src/node/archiveServer.ts";
import { importFixtureChain } from "./fixtures.ts";

/** The fixture chain imported and served over HTTP on an ephemeral port. */
export async function fixtureServer(label: string): Promise<RunningServer> {
  return startArchiveServer({ datadir: importFixtureChain(label), host: "127.0.0.1", port: 0 });
}
