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

/** Shorter values are not masked: they would blot out ordinary words. */
const MIN_SECRET_LENGTH = 8;

export interface FileLoggerOptions {
    /** Values (provider keys) replaced by `[redacted]` wherever they would appear. */
    secrets?: ReadonlyArray<string | undefined>;
}

/**
 * Append-only JSON-lines logger. Lines are batched and appended in one write;
 * every failure is swallowed, because logging must never take North down.
 */
export function createFileLogger(
    path: string,
    minLevel: LogLevel = "info",
    options: FileLoggerOptions = {}
): Logger {
    // Masked in the JSON text, so a secret is found however it was nested or escaped.
    const secrets = (options.secrets ?? [])
        .filter((value): value is string => (value?.length ?? 0) >= MIN_SECRET_LENGTH)
        .map((value) => JSON.stringify(value).slice(1, -1));
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
        for (const secret of secrets) line = line.split(secret).join("[redacted]");
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

/**
 * Tool-argument fields whose text may be logged: where a tool looks (paths,
 * file globs) and which variant it runs, never what it writes, searches for or
 * runs. Any other string, including a new tool's new field, is logged as its size.
 */
export const LOGGABLE_ARG_FIELDS: ReadonlySet<string> = new Set([
    "path",
    "file",
    "pattern",
    "outputId",
    "tool",
    "name",
    "mode",
    "kind",
]);
const MAX_SUMMARY_STRING = 120;
const MAX_SUMMARY_DEPTH = 3;
const MAX_SUMMARY_ITEMS = 20;

function summarizeValue(field: string, value: unknown, depth: number): unknown {
    if (typeof value === "string") {
        if (!LOGGABLE_ARG_FIELDS.has(field)) return `[${value.length} chars]`;
        return value.length > MAX_SUMMARY_STRING ? `${value.slice(0, MAX_SUMMARY_STRING)}…` : value;
    }
    if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
    if (typeof value !== "object") return `[${typeof value}]`;
    if (depth >= MAX_SUMMARY_DEPTH) {
        return Array.isArray(value) ? `[array ${value.length}]` : "[object]";
    }
    if (!Array.isArray(value)) return summarizeObject(value as Record<string, unknown>, depth + 1);
    // Items of an array are judged by the array's own field name.
    const items = value
        .slice(0, MAX_SUMMARY_ITEMS)
        .map((item) => summarizeValue(field, item, depth + 1));
    if (value.length > MAX_SUMMARY_ITEMS) items.push(`[${value.length - MAX_SUMMARY_ITEMS} more]`);
    return items;
}

function summarizeObject(input: Record<string, unknown>, depth: number): Record<string, unknown> {
    const summary: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(input)) {
        summary[field] = summarizeValue(field, value, depth);
    }
    return summary;
}

/**
 * A loggable summary of tool arguments: numbers and flags as they are, the
 * text of `LOGGABLE_ARG_FIELDS` cut short, every other string replaced by its size.
 */
export function summarizeArgs(input: unknown): Record<string, unknown> {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return {};
    return summarizeObject(input as Record<string, unknown>, 0);
}
