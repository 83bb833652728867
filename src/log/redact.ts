// The one place secrets are taken out of the log: every line of every thread passes here (the
// logger's last step before its output), so no caller has to remember to redact.
// A provider may carry its key in a URL's path (`/v2/KEY`, `/rpc/KEY`), its query (`?apikey=…`) or
// its user info (`https://user:pass@host`); and a value under a field named like a secret
// (`apiKey`, `authorization`, `headers`, …) is dropped whatever it looks like.

/** What a secret field's value becomes. */
export const REDACTED = "[redacted]";
/** What a URL's path and query become (`wss://host:port/…redacted`). */
export const REDACTED_PATH = "/…redacted";

// scheme://, then the authority (user info and host[:port]), then what follows it (path, query,
// fragment), each running to the end of the JSON string or the word it sits in, or to a comma
// that starts the next URL of a list (`nats://a:4222,nats://b:4222`).
const SCHEMES = "https?|wss?|nats|tls";
const NOT_NEXT = `(?!,(?:${SCHEMES}):\\/\\/)`;
const URL_IN_TEXT = new RegExp(
  `\\b(${SCHEMES}):\\/\\/((?:${NOT_NEXT}[^\\s"'<>\\\\/?#])*)((?:${NOT_NEXT}[^\\s"'<>\\\\])*)`,
  "gi",
);
/** Punctuation a sentence puts right after a URL: kept after the redacted URL. */
const TRAILING = /[)\]}.,;:!]+$/;

/** Field names whose value is a secret (compared without case, `-` and `_`). */
const SECRET_FIELDS = new Set([
  "apikey",
  "apikeys",
  "key",
  "keys",
  "secret",
  "password",
  "passwd",
  "token",
  "authorization",
  "proxyauthorization",
  "auth",
  "headers",
  "cookie",
  "setcookie",
  "xapikey",
]);

const normalized = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

/** Whether a field of this name holds a secret (its value is dropped). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(normalized(name));
}

/** Every URL in `text` cut to scheme://host[:port]: no user info, path, query or fragment. */
export function redactText(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_IN_TEXT, (_all, scheme: string, authority: string, rest: string) => {
    const host = authority.slice(authority.lastIndexOf("@") + 1);
    const trailing = TRAILING.exec(rest)?.[0] ?? "";
    const tail = rest.slice(0, rest.length - trailing.length);
    const path = tail === "" || tail === "/" ? tail : REDACTED_PATH;
    return `${scheme}://${host}${path}${trailing}`;
  });
}

/** A copy of `value` with secret fields dropped and every URL in its strings cut (any depth). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (typeof value !== "object" || value === null || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = isSecretField(k) ? REDACTED : redactValue(v, depth + 1);
  return out;
}

// A JSON key that names a secret: the line is then parsed and walked (most lines are not).
const SECRET_KEY_IN_JSON = new RegExp(
  `"(?:${[...SECRET_FIELDS].map((f) => f.split("").join("[-_]?")).join("|")})"\\s*:`,
  "i",
);

/** One JSON log record with its secrets taken out (what the logger writes). */
export function redactLine(json: string): string {
  let line = json;
  if (SECRET_KEY_IN_JSON.test(line)) {
    try {
      const newline = line.endsWith("\n") ? "\n" : "";
      line = `${JSON.stringify(redactValue(JSON.parse(line)))}${newline}`;
    } catch {
      // Not one JSON record: its URLs are still cut below.
    }
  }
  return redactText(line);
}
