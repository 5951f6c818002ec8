/**
 * The user's settings read without zod, for the chat's first frame: zod costs
 * ~17 ms to load. Only user files whose every key is known and valid are
 * read here (each check mirrors schema.ts and accepts nothing it reports);
 * the caller sends anything else, a bad value included, to the full check in
 * `load.ts`, so what is accepted and every warning's text stay the same.
 */
import { join } from "node:path";
import { PROVIDER_APIS } from "../../util/provider-apis";
import { configDir } from "../paths";
import type { SettingsLayer, UserSettingsResult } from "./load";
import type { Settings } from "./schema";
import { readRegularTextSync } from "../../util/read-regular-file";

type Env = Record<string, string | undefined>;

export function userConfigPath(env: Env = process.env): string {
    return join(configDir(env), "config.json");
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A record zod copies key by key; `__proto__` is left to the full check. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
    return isRecord(value) && !Object.prototype.hasOwnProperty.call(value, "__proto__");
}

const isString = (value: unknown): boolean => typeof value === "string";
const isBoolean = (value: unknown): boolean => typeof value === "boolean";
const isNonEmptyString = (value: unknown): boolean => typeof value === "string" && value.length > 0;
const isPositiveInt = (value: unknown): boolean =>
    typeof value === "number" && Number.isInteger(value) && value > 0;
const isNonNegative = (value: unknown): boolean =>
    typeof value === "number" && Number.isFinite(value) && value >= 0;
/** What zod's `z.string().url()` accepts unchanged (it trims and drops tabs and newlines). */
const isUrl = (value: unknown): boolean =>
    typeof value === "string" &&
    value === value.trim() &&
    !/[\t\n\r]/.test(value) &&
    URL.canParse(value);

type Check = (value: unknown) => boolean;

/**
 * An object with only the `fields` given (each optional unless `required`),
 * every present one passing its check: zod's object, minus the unknown keys
 * it would report.
 */
function objectOf(fields: Record<string, Check>, required: readonly string[] = []): Check {
    return (value) =>
        isPlainRecord(value) &&
        required.every((key) => Object.prototype.hasOwnProperty.call(value, key)) &&
        Object.entries(value).every(
            ([key, field]) =>
                Object.prototype.hasOwnProperty.call(fields, key) && fields[key]!(field)
        );
}

const arrayOf =
    (item: Check): Check =>
    (value) =>
        Array.isArray(value) && value.every(item);

const recordOf =
    (item: Check): Check =>
    (value) =>
        isPlainRecord(value) && Object.values(value).every(item);

const PROVIDER = objectOf({
    api: (value) => (PROVIDER_APIS as readonly unknown[]).includes(value),
    baseUrl: isUrl,
    apiKeyEnv: isNonEmptyString,
    headers: recordOf(isString),
    display: isString,
});

const MODEL = objectOf(
    {
        alias: isNonEmptyString,
        id: isNonEmptyString,
        provider: isNonEmptyString,
        display: isString,
        contextLimitTokens: isPositiveInt,
        maxOutputTokens: isPositiveInt,
        thinkingBudget: isPositiveInt,
        pricing: objectOf(
            {
                input: isNonNegative,
                output: isNonNegative,
                cacheRead: isNonNegative,
                cacheWrite: isNonNegative,
            },
            ["input", "output"]
        ),
        images: isBoolean,
    },
    ["alias", "id", "provider"]
);

/** A deep copy of JSON data, as zod hands back parsed objects and arrays. */
function copyJson(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(copyJson);
    if (isRecord(value)) {
        const out: Record<string, unknown> = {};
        for (const [key, field] of Object.entries(value)) out[key] = copyJson(field);
        return out;
    }
    return value;
}

/**
 * User-scope keys whose schema (schema.ts) is this simple check, with no
 * nested keys to report. test/storage/settings-plain-load.test.ts holds the
 * two to the same answers.
 */
export const PLAIN_USER_KEYS: Readonly<Record<string, (value: unknown) => boolean>> = {
    $schema: isString,
    selectedModel: isString,
    theme: (value) => value === "dark" || value === "light" || value === "auto",
    mouse: isBoolean,
    disableAllHooks: isBoolean,
    hooks: isPlainRecord,
    mcpServers: isPlainRecord,
    providers: recordOf(PROVIDER),
    models: arrayOf(MODEL),
    // Rules are checked one by one later (tools/permissions/rules.ts), as with the full check.
    permissions: objectOf({ allow: () => true, deny: () => true, ask: () => true }),
    sandbox: (value) =>
        isBoolean(value) ||
        objectOf({
            enabled: isBoolean,
            network: isBoolean,
            writable: arrayOf(isNonEmptyString),
        })(value),
    webFetch: objectOf({ allowPrivateNetwork: isBoolean }),
    subagents: objectOf({ tools: arrayOf(isNonEmptyString) }),
};

/** One user file's settings when every key is plain and valid, else undefined (check it fully). */
export function plainUserSettings(text: string): Settings | undefined {
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch {
        return undefined;
    }
    if (!isPlainRecord(json)) return undefined;
    const settings: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(json)) {
        const check = Object.prototype.hasOwnProperty.call(PLAIN_USER_KEYS, key)
            ? PLAIN_USER_KEYS[key]
            : undefined;
        if (!check?.(value)) return undefined;
        // hooks, mcpServers and permission lists are opaque to zod too: a shallow copy, as it makes.
        settings[key] =
            key === "hooks" || key === "mcpServers" || key === "permissions"
                ? { ...(value as Record<string, unknown>) }
                : copyJson(value);
    }
    return settings as Settings;
}

/**
 * `loadUserSettings` (load.ts) for `settings.json` then `config.json` in the
 * user's config folder when every file is plain; undefined when one needs the
 * full check (a bad value, an unknown key, a read error).
 */
export function plainUserLayers(env: Env = process.env): UserSettingsResult | undefined {
    const path = userConfigPath(env);
    const layers: SettingsLayer[] = [];
    for (const file of [join(configDir(env), "settings.json"), path]) {
        let text: string;
        try {
            text = readRegularTextSync(file);
        } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === "ENOENT" || code === "ENOTDIR") continue;
            return undefined;
        }
        const settings = plainUserSettings(text);
        if (settings === undefined) return undefined;
        layers.push({ kind: "user", path: file, settings, text });
    }
    return { ok: true, layers, warnings: [], path };
}

/** Merges layers given lowest first: later values win, `allowedCommands` add up. */
export function mergeLayers(layers: readonly SettingsLayer[]): Settings {
    const merged: Record<string, unknown> = {};
    const commands: string[] = [];
    for (const { settings } of layers) {
        for (const [key, value] of Object.entries(settings)) {
            // Each file's hooks run and each file's permission rules keep their source.
            if (key === "hooks" || key === "$schema" || key === "permissions") continue;
            if (key === "allowedCommands") {
                for (const command of value as string[])
                    if (!commands.includes(command)) commands.push(command);
            } else merged[key] = value;
        }
    }
    if (commands.length > 0) merged.allowedCommands = commands;
    return merged as Settings;
}
