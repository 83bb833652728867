// The chain's Common, whose parameter merges are remembered. The EVM library copies the Common
// for every transaction it decodes and every header it builds, and merges its parameter tables
// into the copy (updateParams: a JSON deep copy of each table, then the whole parameter cache
// rebuilt, ~20 µs). The tables are the same every time, and a copy starts from its original's
// cache: the cache that merge made from that cache is kept and handed to the next copy, as long
// as the merged tables have not changed since.
import { Common, type ParamsConfig, type ParamsDict } from "@ethereumjs/common";

/** A merge made: the cache it made, and the tables it left (their object and version). */
type Merge = {
  readonly cache: ParamsConfig;
  readonly tables: ParamsDict;
  readonly version: number;
};

/** The merges made from each cache, by the tables merged. */
const merges = new WeakMap<ParamsConfig, WeakMap<ParamsDict, Merge>>();
/** How many merges changed a value of each tables object: a merge remembered under another is stale. */
const versions = new WeakMap<ParamsDict, number>();

/** Whether `tables` holds every value of `params` already (merging them would change nothing). */
function holds(tables: ParamsDict, params: ParamsDict): boolean {
  for (const [table, values] of Object.entries(params)) {
    const have = tables[table];
    if (have === undefined || have === null) return false;
    for (const [name, value] of Object.entries(values)) if (have[name] !== value) return false;
  }
  return true;
}

export class ChainCommon extends Common {
  override updateParams(params: ParamsDict): void {
    const from = this._paramsCache;
    const known = merges.get(from)?.get(params);
    if (
      known !== undefined &&
      known.tables === this._params &&
      known.version === (versions.get(this._params) ?? 0)
    ) {
      // The same merge onto the same tables changes no value: its cache is the one it made.
      this._paramsCache = known.cache;
      return;
    }
    const changes = !holds(this._params, params);
    super.updateParams(params);
    const version = (versions.get(this._params) ?? 0) + (changes ? 1 : 0);
    versions.set(this._params, version);
    let made = merges.get(from);
    if (made === undefined) {
      made = new WeakMap();
      merges.set(from, made);
    }
    made.set(params, { cache: this._paramsCache, tables: this._params, version });
  }
}
