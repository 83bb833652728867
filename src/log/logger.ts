// Structured JSON logs (pino) with levels; every subsystem gets a child logger with its name.
// On a terminal the same records are printed as one readable line each. Every line, of every
// thread, is redacted on its way out (./redact.ts): no caller redacts on its own.
import { pino } from "pino";
import { FlashnodeError } from "../util/errors.ts";
import { redactLine } from "./redact.ts";

/** One level's method: the record's fields (optional), then its message. */
export type LogMethod = {
  (fields: object, msg?: string): void;
  (msg: string): void;
};

/**
 * The node's logger, as its parts see it (pino's is one; tests may pass their own): a method per
 * level and a child per subsystem (`child({ module: "follow" })`), whose lines carry its fields.
 */
export interface Logger {
  /** The lowest level written (`--log-level`). */
  readonly level: string;
  /** Whether a line at `level` would be written (skip the work of one that would not). */
  isLevelEnabled(level: string): boolean;
  readonly trace: LogMethod;
  readonly debug: LogMethod;
  readonly info: LogMethod;
  readonly warn: LogMethod;
  readonly error: LogMethod;
  readonly fatal: LogMethod;
  child(bindings: { readonly module?: string } & Record<string, unknown>): Logger;
}

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** An unknown --log-level: an operator-facing, one-line error. */
export class LogLevelError extends FlashnodeError {
  readonly code = "USAGE";
}

/**
 * JSON lines on stdout, or on `destination` (tests capture them). When stdout is a terminal and
 * no destination is given, readable lines instead (FLASHNODE_LOG_FORMAT=json keeps JSON there).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new LogLevelError(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const options = {
    level,
    base: { name: "flashnode" },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The record as written, after its serializers: secrets in any field, message or error.
    hooks: { streamWrite: redactLine },
  };
  if (destination !== undefined) return pino(options, destination);
  if (process.stdout.isTTY && process.env.FLASHNODE_LOG_FORMAT !== "json")
    return pino(options, readableLines(process.stdout));
  // pino's own default (asynchronous writes to fd 1), kept so printAfterLogs can queue behind it.
  const out = pino.destination({ dest: 1 });
  const logger = pino(options, out);
  textOutputs.set(logger, out);
  return logger;
}

const textOutputs = new WeakMap<Logger, { write(text: string): unknown }>();

/**
 * Prints plain text (the dev banner) on the log's output after every record logged so far.
 * JSON records go through pino's asynchronous writer, whose flush() returns at once even with a
 * write in flight (sonic-boom with minLength 0): text written straight to stdout could overtake
 * the start-up lines. Readable lines on a terminal are written synchronously, so stdout is in
 * order there.
 */
export function printAfterLogs(logger: Logger, text: string): void {
  (textOutputs.get(logger) ?? process.stdout).write(text);
}

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};

/** One record as a line a person reads: `12:04:15.909 INFO  pending contract created hash=0x…`. */
export function readableLine(json: string): string {
  const {
    level,
    time,
    name: _name,
    module,
    msg,
    err,
    ...fields
  } = JSON.parse(json) as Record<string, unknown>;
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const parts = [clock, LEVEL_NAMES[level as number] ?? String(level)];
  if (module !== undefined) parts.push(String(module));
  parts.push(String(msg ?? ""));
  for (const [key, value] of Object.entries(fields))
    parts.push(`${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  const stack = (err as { stack?: string } | undefined)?.stack;
  return `${parts.join(" ")}${stack === undefined ? "" : `\n${stack}`}\n`;
}

function readableLines(out: { write(text: string): unknown }): pino.DestinationStream {
  return { write: (json: string) => void out.write(readableLine(json)) };
}

export type ForwardedLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal";
const FORWARDED_LEVELS: Record<number, ForwardedLevel> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

/**
 * A logger whose records are handed to `forward` (a worker thread's records go to the RPC
 * thread's log, which owns the output and its format). Records below `level` are dropped in the
 * thread; what crosses is redacted here and again by the RPC thread's log.
 */
export function forwardingLogger(
  level: string,
  forward: (level: ForwardedLevel, msg: string, fields: Record<string, unknown>) => void,
): Logger {
  return createLogger(level, {
    write(json: string) {
      const {
        level: n,
        time: _time,
        name: _name,
        msg,
        ...fields
      } = JSON.parse(json) as Record<string, unknown>;
      forward(FORWARDED_LEVELS[n as number] ?? "info", String(msg ?? ""), fields);
    },
  });
}

/** A record as a worker thread forwards it. */
export type ForwardedRecord = {
  readonly level: ForwardedLevel;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
};

/**
 * A worker thread's log: records below the node's --log-level are dropped in the thread, the rest
 * cross to the RPC thread's log (`send`), which redacts again, as it does every line. `log` is the
 * same logger called as (level, msg, fields).
 */
export function threadLog(
  level: string,
  send: (record: ForwardedRecord) => void,
): {
  readonly logger: Logger;
  readonly log: (level: ForwardedLevel, msg: string, fields: Record<string, unknown>) => void;
} {
  const logger = forwardingLogger(level, (l, msg, fields) => send({ level: l, msg, fields }));
  return { logger, log: (l, msg, fields) => logger[l](fields, msg) };
}
