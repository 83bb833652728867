// Small helpers shared by the harness modules.

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
