// Filters of a node served by several readers (`--rpc-workers`): a filter lives in the reader
// that installed it, and its id names that reader (feed/filters.ts). A poll that another reader
// receives (a client's second connection) is run by the holder, through the primary.
import { filterOwner } from "../feed/filters.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { RawJson } from "../rpc/method.ts";
import type { ReaderLink } from "./readerLink.ts";

/** The methods that take a filter id. */
const FILTER_POLLS = ["eth_getFilterChanges", "eth_getFilterLogs", "eth_uninstallFilter"];

export function routeFilterCalls(
  methods: MethodRegistry,
  link: ReaderLink,
  slot: number,
): MethodRegistry {
  const local = (method: string, filterId: string): Promise<string> => {
    const def = methods[method];
    if (def === undefined) return Promise.reject(new Error(`no method ${method}`));
    // A handler may throw at once ("filter not found"): that too must reach the asker.
    return new Promise<unknown>((resolve) =>
      resolve(def.handler([filterId], { tier: "dedicated" })),
    ).then((r) => (r instanceof RawJson ? r.json : JSON.stringify(r)));
  };
  link.serveFilterCalls(local);
  const out: Record<string, MethodRegistry[string]> = { ...methods };
  for (const name of FILTER_POLLS) {
    const def = methods[name];
    if (def === undefined) continue;
    out[name] = {
      params: def.params,
      handler: (args, ctx) => {
        const id = args[0] as string;
        const owner = filterOwner(id);
        if (owner === undefined || owner === slot) return def.handler(args, ctx);
        return link.callFilter(owner, name, id).then((json) => new RawJson(json));
      },
    };
  }
  return out;
}
