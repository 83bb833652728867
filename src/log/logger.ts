// Structured JSON logs (pino) with levels; every subsystem gets a child logger with its name.
import { pino } from "pino";

export type Logger = pino.Logger;

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** An unknown --log-level: an operator-facing, one-line error. */
export class LogLevelError extends Error {
  readonly code = "USAGE";
}

/** JSON lines on stdout, or on `destination` (tests capture them). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new LogLevelError(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const options = { level, base: { name: "flashnode" }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination === undefined ? pino(options) : pino(options, destination);
}
