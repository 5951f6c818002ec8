import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export const LOG_LEVELS = Object.keys(LEVEL_ORDER) as LogLevel[];

export interface Logger {
    debug(event: string, data?: Record<string, unknown>): void;
    info(event: string, data?: Record<string, unknown>): void;
    warn(event: string, data?: Record<string, unknown>): void;
    error(event: string, data?: Record<string, unknown>): void;
    /** Writes what is buffered; called on exit. */
    flush(): void;
}

export const silentLogger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error() {},
    flush() {},
};

const FLUSH_DELAY_MS = 200;
const MAX_BUFFERED_LINES = 256;

/**
 * Append-only JSON-lines logger. Lines are batched and appended in one write;
 * every failure is swallowed, because logging must never take North down.
 */
export function createFileLogger(path: string, minLevel: LogLevel = "info"): Logger {
    let buffer: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    let broken = false;
    let dirReady = false;

    const flush = (): void => {
        if (timer) {
            clearTimeout(timer);
            timer = undefined;
        }
        if (buffer.length === 0 || broken) {
            buffer = [];
            return;
        }
        const text = buffer.join("");
        buffer = [];
        try {
            if (!dirReady) {
                mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
                dirReady = true;
            }
            appendFileSync(path, text, { mode: 0o600 });
        } catch {
            broken = true;
        }
    };

    const write = (level: LogLevel, event: string, data?: Record<string, unknown>): void => {
        if (broken || LEVEL_ORDER[level] < LEVEL_ORDER[minLevel]) return;
        let line: string;
        try {
            line = JSON.stringify({
                timestamp: new Date().toISOString(),
                level,
                event,
                data: data ?? {},
            });
        } catch {
            line = JSON.stringify({ timestamp: new Date().toISOString(), level, event, data: {} });
        }
        buffer.push(line + "\n");
        if (buffer.length >= MAX_BUFFERED_LINES) flush();
        else if (!timer) {
            timer = setTimeout(flush, FLUSH_DELAY_MS);
            timer.unref();
        }
    };

    return {
        debug: (e, d) => write("debug", e, d),
        info: (e, d) => write("info", e, d),
        warn: (e, d) => write("warn", e, d),
        error: (e, d) => write("error", e, d),
        flush,
    };
}

const SECRET_KEY = /key|token|secret|password|authorization/i;
const CONTENT_KEY = /^(content|contents|text|newText|oldText|replacement|insert|body|data)$/i;
const MAX_SUMMARY_STRING = 120;

/**
 * A loggable summary of tool arguments: scalars kept short, file contents and
 * anything that looks like a secret replaced by its size.
 */
export function summarizeArgs(input: unknown): Record<string, unknown> {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return {};
    const summary: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
        if (SECRET_KEY.test(key)) summary[key] = "[redacted]";
        else if (CONTENT_KEY.test(key)) {
            summary[key] = `[${typeof value === "string" ? value.length : 0} chars]`;
        } else if (typeof value === "string") {
            summary[key] =
                value.length > MAX_SUMMARY_STRING
                    ? `${value.slice(0, MAX_SUMMARY_STRING)}…`
                    : value;
        } else if (typeof value === "number" || typeof value === "boolean" || value === null) {
            summary[key] = value;
        } else summary[key] = Array.isArray(value) ? `[array ${value.length}]` : "[object]";
    }
    return summary;
}
