// Structured JSON logs (pino) with levels; every subsystem gets a child logger with its name.
import { pino } from "pino";

export type Logger = pino.Logger;

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

export function createLogger(level: string): Logger {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
  }
  return pino({ level, base: { name: "flashnode" }, timestamp: pino.stdTimeFunctions.isoTime });
}
