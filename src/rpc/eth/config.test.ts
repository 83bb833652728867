import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type FixtureChain, fixtureChain, result } from "../../../test/utils/fixtureChain.ts";
import { FIXTURES } from "../../../test/utils/fixtures.ts";
import { ForkSchedule } from "../../chain/ethConfig.ts";

type Fork = {
  activationTime: number;
  blobSchedule: unknown;
  forkId: string;
  precompiles: Record<string, string>;
  systemContracts: Record<string, string>;
};
type Config = { current: Fork | null; next: Fork | null; last: Fork | null };

const BERLIN_PRECOMPILES = [
  "BLAKE2F",
  "BN254_ADD",
  "BN254_MUL",
  "BN254_PAIRING",
  "ECREC",
  "ID",
  "MODEXP",
  "RIPEMD160",
  "SHA256",
];
let chain: FixtureChain;

describe("eth_config", () => {
  before(async () => {
    chain = await fixtureChain("config");
  });
  after(async () => {
    await chain.close();
  });

  test("at the fixture chain's head (BPO2, nothing scheduled): the fixture, exactly", async () => {
    const io = readFileSync(join(FIXTURES, "tests-more/eth_config/get-config.io"), "utf8");
    const expected = JSON.parse(
      io
        .split("\n")
        .find((l) => l.startsWith("<< "))!
        .slice(3),
    );
    assert.deepEqual(await result(chain.call, "eth_config"), expected.result);
  });

  test("earlier heads: the current fork, the next one and the last one", async () => {
    // Block n has timestamp 10n: block 40 is in Shanghai (390), Cancun is next (420).
    const at40 = (await result(chain.at({ head: 40 }), "eth_config")) as Config;
    assert.equal(at40.current?.activationTime, 390);
    assert.equal(at40.current?.blobSchedule, null);
    assert.deepEqual(Object.keys(at40.current?.precompiles ?? {}), BERLIN_PRECOMPILES);
    assert.deepEqual(at40.current?.systemContracts, {});
    assert.equal(at40.next?.activationTime, 420);
    assert.deepEqual(at40.next?.blobSchedule, {
      target: 3,
      max: 6,
      baseFeeUpdateFraction: 3338477,
    });
    assert.equal(at40.next?.precompiles.KZG_POINT_EVALUATION, `0x${"0".repeat(38)}0a`);
    assert.deepEqual(Object.keys(at40.next?.systemContracts ?? {}), ["BEACON_ROOTS_ADDRESS"]);
    // The last fork seen from here is the head's fork seen from the head: the same fork id.
    const at54 = (await result(chain.call, "eth_config")) as Config;
    assert.deepEqual(at40.last, at54.current);
    assert.notEqual(at40.current?.forkId, at40.next?.forkId);

    // Osaka (480) at block 49: geth keeps Prague's blob schedule for it (no "osaka" entry).
    const at49 = (await result(chain.at({ head: 49 }), "eth_config")) as Config;
    assert.equal(at49.current?.activationTime, 480);
    assert.deepEqual(at49.current?.blobSchedule, {
      target: 6,
      max: 9,
      baseFeeUpdateFraction: 5007716,
    });
    assert.equal(at49.current?.precompiles.P256VERIFY, `0x${"0".repeat(37)}100`);
    assert.equal(at49.next?.activationTime, 510);
  });

  test("forks active at genesis report activation time 0; before London there is no fork", () => {
    const genesis = { hash: new Uint8Array(32), timestamp: 1000n };
    const dev = new ForkSchedule({
      londonBlock: 0,
      berlinBlock: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      osakaTime: 0,
      depositContractAddress: "0x00000000219ab540356CBB839Cbe05303d7705Fa",
    });
    const c = dev.ethConfig(31337n, genesis, 5000n);
    assert.equal(c.current?.activationTime, 0n);
    assert.equal(c.next, undefined);
    assert.equal(c.last, undefined);
    assert.deepEqual(
      c.current?.systemContracts.find(([name]) => name === "DEPOSIT_CONTRACT_ADDRESS"),
      ["DEPOSIT_CONTRACT_ADDRESS", "0x00000000219ab540356cbb839cbe05303d7705fa"],
    );
    // geth's LatestFork assumes London: without it the chain is never past Paris.
    const preLondon = new ForkSchedule({ berlinBlock: 0, shanghaiTime: 0 }).ethConfig(
      1n,
      genesis,
      5000n,
    );
    assert.equal(preLondon.current, undefined);
    assert.equal(preLondon.last, undefined);
  });
});
