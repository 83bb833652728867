import assert from "node:assert/strict";
import { test } from "node:test";
import { hexToBytes } from "../util/hex.ts";
import { crc32, forkId, gatherForks } from "./forkId.ts";

// Mainnet and Sepolia as geth's params/config.go schedules them; the expected ids are EIP-2124's
// published vectors (also geth's core/forkid/forkid_test.go).
const MAINNET = {
  config: {
    chainId: 1,
    homesteadBlock: 1_150_000,
    daoForkBlock: 1_920_000,
    daoForkSupport: true,
    eip150Block: 2_463_000,
    eip155Block: 2_675_000,
    eip158Block: 2_675_000,
    byzantiumBlock: 4_370_000,
    constantinopleBlock: 7_280_000,
    petersburgBlock: 7_280_000,
    istanbulBlock: 9_069_000,
    muirGlacierBlock: 9_200_000,
    berlinBlock: 12_244_000,
    londonBlock: 12_965_000,
    arrowGlacierBlock: 13_773_000,
    grayGlacierBlock: 15_050_000,
    terminalTotalDifficulty: 58_750_000_000_000_000_000_000n,
    shanghaiTime: 1681338455,
    cancunTime: 1710338135,
    pragueTime: 1746612311,
    osakaTime: 1764798551,
    bpo1Time: 1765290071,
    bpo2Time: 1767747671,
  },
  genesis: {
    hash: hexToBytes("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3"),
    timestamp: 0n,
  },
};

const MAINNET_VECTORS: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 0, 0xfc64ec04, 1150000], // unsynced
  [1149999, 0, 0xfc64ec04, 1150000], // last Frontier block
  [1150000, 0, 0x97c2c34c, 1920000], // first Homestead block
  [1919999, 0, 0x97c2c34c, 1920000],
  [1920000, 0, 0x91d1f948, 2463000], // first DAO block
  [2462999, 0, 0x91d1f948, 2463000],
  [2463000, 0, 0x7a64da13, 2675000], // first Tangerine block
  [2674999, 0, 0x7a64da13, 2675000],
  [2675000, 0, 0x3edd5b10, 4370000], // first Spurious block
  [4369999, 0, 0x3edd5b10, 4370000],
  [4370000, 0, 0xa00bc324, 7280000], // first Byzantium block
  [7279999, 0, 0xa00bc324, 7280000],
  [7280000, 0, 0x668db0af, 9069000], // Constantinople and Petersburg at once
  [9068999, 0, 0x668db0af, 9069000],
  [9069000, 0, 0x879d6e30, 9200000], // first Istanbul block
  [9199999, 0, 0x879d6e30, 9200000],
  [9200000, 0, 0xe029e991, 12244000], // first Muir Glacier block
  [12243999, 0, 0xe029e991, 12244000],
  [12244000, 0, 0x0eb440f6, 12965000], // first Berlin block
  [12964999, 0, 0x0eb440f6, 12965000],
  [12965000, 0, 0xb715077d, 13773000], // first London block
  [13772999, 0, 0xb715077d, 13773000],
  [13773000, 0, 0x20c327fc, 15050000], // first Arrow Glacier block
  [15049999, 0, 0x20c327fc, 15050000],
  [15050000, 0, 0xf0afd0e3, 1681338455], // first Gray Glacier block
  [20000000, 1681338454, 0xf0afd0e3, 1681338455], // last Gray Glacier block
  [20000000, 1681338455, 0xdce96c2d, 1710338135], // first Shanghai block
  [30000000, 1710338134, 0xdce96c2d, 1710338135],
  [30000000, 1710338135, 0x9f3d2254, 1746612311], // first Cancun block
  [30000000, 1746022486, 0x9f3d2254, 1746612311],
  [30000000, 1746612311, 0xc376cf8b, 1764798551], // first Prague block
  [30000000, 1764798550, 0xc376cf8b, 1764798551],
  [30000000, 1764798551, 0x5167e2a6, 1765290071], // first Osaka block
  [30000000, 1765290070, 0x5167e2a6, 1765290071],
  [30000000, 1765290071, 0xcba2a1c0, 1767747671], // first BPO1 block
  [30000000, 1767747670, 0xcba2a1c0, 1767747671],
  [30000000, 1767747671, 0x07c9462e, 0], // first BPO2 block
  [50000000, 2000000000, 0x07c9462e, 0], // future BPO2 block
];

const SEPOLIA = {
  config: {
    chainId: 11155111,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    terminalTotalDifficulty: 17_000_000_000_000_000n,
    mergeNetsplitBlock: 1735371,
    shanghaiTime: 1677557088,
    cancunTime: 1706655072,
    pragueTime: 1741159776,
    osakaTime: 1760427360,
    bpo1Time: 1761017184,
    bpo2Time: 1761607008,
  },
  genesis: {
    hash: hexToBytes("0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9"),
    timestamp: 1633267481n,
  },
};

const SEPOLIA_VECTORS: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 0, 0xfe3366e7, 1735371], // every block fork at genesis, through London
  [1735370, 0, 0xfe3366e7, 1735371],
  [1735371, 0, 0xb96cbd13, 1677557088], // first MergeNetsplit block
  [1735372, 1677557087, 0xb96cbd13, 1677557088],
  [1735372, 1677557088, 0xf7f9bc08, 1706655072], // first Shanghai block
  [1735372, 1706655071, 0xf7f9bc08, 1706655072],
  [1735372, 1706655072, 0x88cf81d9, 1741159776], // first Cancun block
  [1735372, 1741159775, 0x88cf81d9, 1741159776],
  [1735372, 1741159776, 0xed88b5fd, 1760427360], // first Prague block
  [1735372, 1760427359, 0xed88b5fd, 1760427360],
  [1735372, 1760427360, 0xe2ae4999, 1761017184], // first Osaka block
  [1735372, 1761017183, 0xe2ae4999, 1761017184],
  [1735372, 1761017184, 0x56078a1e, 1761607008], // first BPO1 block
  [1735372, 1761607007, 0x56078a1e, 1761607008],
  [1735372, 1761607008, 0x268956b6, 0], // first BPO2 block
  [1735372, 2000000000, 0x268956b6, 0],
];

function check(
  chain: typeof MAINNET | typeof SEPOLIA,
  vectors: ReadonlyArray<readonly [number, number, number, number]>,
) {
  for (const [head, time, hash, next] of vectors) {
    const id = forkId(chain.config, chain.genesis, BigInt(head), BigInt(time));
    const got = new DataView(id.hash.buffer).getUint32(0);
    assert.equal(got.toString(16), hash.toString(16), `hash at head ${head}, time ${time}`);
    assert.equal(id.next, BigInt(next), `next at head ${head}, time ${time}`);
  }
}

test("CRC-32 (IEEE) as Go's hash/crc32", () => {
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
});

test("EIP-2124 mainnet vectors", () => check(MAINNET, MAINNET_VECTORS));

test("EIP-2124 Sepolia vectors (forks at genesis and before the genesis time are skipped)", () =>
  check(SEPOLIA, SEPOLIA_VECTORS));

test("forks: deduplicated, sorted, block 0 and times up to genesis dropped, unknown keys ignored", () => {
  assert.deepEqual(
    gatherForks(
      {
        homesteadBlock: 0,
        eip155Block: 6,
        eip158Block: 6,
        byzantiumBlock: 3,
        cancunBlock: 99, // not a geth field
        terminalTotalDifficulty: 5,
        shanghaiTime: 10,
        cancunTime: 20,
        pragueTime: "0x1e",
      },
      10n,
    ),
    { byBlock: [3n, 6n], byTime: [20n, 30n] },
  );
});
