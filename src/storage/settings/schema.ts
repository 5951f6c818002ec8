/**
 * The one schema of North's settings files. Every key says which layers may
 * set it: the user's (`~/.config/north/config.json`) or the project's
 * (`.north/settings.json`, `.north/settings.local.json`). A key set in the
 * wrong layer, an unknown key and a bad value are reported with the file and
 * the key; none of them stops North.
 */
import type * as z from "zod";
import { lazySchema, zod } from "../../util/zod-runtime";
import { closestMatches } from "../../util/levenshtein";
import { PROVIDER_APIS, PROVIDER_AUTHS } from "../../util/provider-apis";

const pricingSchema = lazySchema((z) =>
    z.object({
        input: z.number().nonnegative(),
        output: z.number().nonnegative(),
        cacheRead: z.number().nonnegative().optional(),
        cacheWrite: z.number().nonnegative().optional(),
    })
);

const providerSchema = lazySchema((z) =>
    z.object({
        api: z.enum(PROVIDER_APIS).optional(),
        baseUrl: z.string().url().optional(),
        /** Name of the environment variable that holds the key. */
        apiKeyEnv: z.string().min(1).optional(),
        headers: z.record(z.string(), z.string()).optional(),
        display: z.string().optional(),
        /** `key` (default), or a cloud's credential chain: `aws`, `google`, `azure`. */
        auth: z.enum(PROVIDER_AUTHS).optional(),
        /** The header the key goes in, when not the API's usual one (Azure's `api-key`). */
        keyHeader: z.string().min(1).optional(),
        /** Cloud region (AWS region, Vertex location). */
        region: z.string().min(1).optional(),
        /** Google Cloud project (Vertex AI). */
        project: z.string().min(1).optional(),
        /** AWS profile from the shared config files. */
        profile: z.string().min(1).optional(),
        /** Azure OpenAI `api-version`. */
        apiVersion: z.string().min(1).optional(),
    })
);

const modelSchema = lazySchema((z) =>
    z.object({
        alias: z.string().min(1),
        id: z.string().min(1),
        provider: z.string().min(1),
        display: z.string().optional(),
        contextLimitTokens: z.number().int().positive().optional(),
        maxOutputTokens: z.number().int().positive().optional(),
        thinkingBudget: z.number().int().positive().optional(),
        pricing: pricingSchema().optional(),
        /** The model accepts images (sent as image blocks; otherwise replaced by a note). */
        images: z.boolean().optional(),
    })
);

// Lists are checked rule by rule (tools/permissions/rules.ts): a bad `allow` must not lose `deny`.
const permissionsSchema = lazySchema((z) =>
    z.object({
        allow: z.unknown().optional(),
        deny: z.unknown().optional(),
        ask: z.unknown().optional(),
    })
);

/** `true`, or the sandbox's shape (tools/sandbox/policy.ts decides what each layer may change). */
const sandboxSchema = lazySchema((z) =>
    z.union([
        z.boolean(),
        z.object({
            enabled: z.boolean().optional(),
            network: z.boolean().optional(),
            writable: z.array(z.string().min(1)).optional(),
        }),
    ])
);

/** One language server: a built-in's name changes what it sets, a new name needs command and extensions. */
const lspServerSchema = lazySchema((z) =>
    z.object({
        command: z.string().min(1).optional(),
        args: z.array(z.string()).optional(),
        /** `[".zig"]`, or `{".zig": "zig"}` naming each extension's languageId. */
        extensions: z
            .union([z.array(z.string().min(1)), z.record(z.string(), z.string())])
            .optional(),
        /** Files marking a server's root folder (`go.mod`); default the project root. */
        rootMarkers: z.array(z.string().min(1)).optional(),
        initializationOptions: z.unknown().optional(),
        /** Answers to the server's `workspace/configuration`, by section. */
        settings: z.record(z.string(), z.unknown()).optional(),
        env: z.record(z.string(), z.string()).optional(),
        disabled: z.boolean().optional(),
    })
);

/** Language servers (tools/lsp/server-definitions.ts has the built-ins). */
const lspSchema = lazySchema((z) =>
    z.object({
        enabled: z.boolean().optional(),
        memoryLimitMb: z.number().positive().optional(),
        idleMinutes: z.number().positive().optional(),
        /** Time from an applied edit to its diagnostics in the result; later they are pending. */
        diagnosticsBudgetMs: z.number().int().positive().optional(),
        servers: z.record(z.string(), lspServerSchema()).optional(),
    })
);

export type SettingsScope = "user" | "project";

interface KeySpec {
    /** Built on first use: the launch paths load no zod (src/cli/launch-boundary.ts). */
    schema: () => z.ZodType;
    scopes: readonly SettingsScope[];
}

const USER: readonly SettingsScope[] = ["user"];
const PROJECT: readonly SettingsScope[] = ["project"];
const ANY: readonly SettingsScope[] = ["user", "project"];

/** Every key North reads from a settings file, with the layers allowed to set it. */
export const SETTINGS_KEYS = {
    /** JSON Schema reference for editors; never read. */
    $schema: { schema: lazySchema((z) => z.string()), scopes: ANY },
    /** The model used when `--model` is not given (`/model` saves it). */
    selectedModel: { schema: lazySchema((z) => z.string()), scopes: USER },
    /** The model for side jobs (summaries, project learning); the session's model when unset. */
    smallFastModel: { schema: lazySchema((z) => z.string().min(1)), scopes: USER },
    providers: { schema: lazySchema((z) => z.record(z.string(), providerSchema())), scopes: USER },
    models: { schema: lazySchema((z) => z.array(modelSchema())), scopes: USER },
    /** MCP servers for every project, in `.mcp.json`'s shape (checked by the MCP loader). */
    mcpServers: { schema: lazySchema((z) => z.record(z.string(), z.unknown())), scopes: USER },
    /** The chat's colours; `auto` follows the terminal's background (COLORFGBG), else dark. */
    theme: { schema: lazySchema((z) => z.enum(["dark", "light", "auto"])), scopes: USER },
    /** false: the chat leaves mouse reporting off (no wheel scrolling; plain drag selects). */
    mouse: { schema: lazySchema((z) => z.boolean()), scopes: USER },
    /** `vim`: the composer takes vim keys (Claude Code's key; `/vim` toggles and saves it). */
    editorMode: { schema: lazySchema((z) => z.enum(["normal", "vim"])), scopes: USER },
    /** false: leaving the chat prints no compact transcript to the normal screen. */
    exitTranscript: { schema: lazySchema((z) => z.boolean()), scopes: USER },
    /** Claude Code's hook schema (checked entry by entry by the hooks loader). */
    hooks: { schema: lazySchema((z) => z.record(z.string(), z.unknown())), scopes: ANY },
    disableAllHooks: { schema: lazySchema((z) => z.boolean()), scopes: ANY },
    /** Commands run without asking: exact strings, never patterns. */
    allowedCommands: { schema: lazySchema((z) => z.array(z.string())), scopes: PROJECT },
    editsAutoAccept: { schema: lazySchema((z) => z.boolean()), scopes: PROJECT },
    shellAutoApprove: { schema: lazySchema((z) => z.boolean()), scopes: PROJECT },
    /** Shell commands run in the OS sandbox; a project may only tighten it. */
    sandbox: { schema: sandboxSchema, scopes: ANY },
    /** web_fetch: `allowPrivateNetwork` lets it reach loopback and private addresses (user only). */
    webFetch: {
        schema: lazySchema((z) => z.object({ allowPrivateNetwork: z.boolean().optional() })),
        scopes: USER,
    },
    /** The tools of a subagent run without a named agent (North's or Claude Code's names; user only). */
    subagents: {
        schema: lazySchema((z) => z.object({ tools: z.array(z.string().min(1)).optional() })),
        scopes: USER,
    },
    /**
     * Language servers: on/off, memory cap, idle minutes, servers added or
     * changed. A project's layer counts only when trusted, like every project
     * setting, and servers only ever start in a trusted project.
     */
    lsp: { schema: lspSchema, scopes: ANY },
    /**
     * Background processes: `max` running at once (default 8); with
     * `startTurnOnNotice` a process's notice while the chat is idle starts a
     * turn (default off: it waits for the next prompt). User only: a project
     * must not make North act on its own.
     */
    processes: {
        schema: lazySchema((z) =>
            z.object({
                max: z.number().int().positive().max(64).optional(),
                startTurnOnNotice: z.boolean().optional(),
            })
        ),
        scopes: USER,
    },
    /**
     * Claude Code's permission rules; each rule is checked on its own
     * (tools/permissions/rules.ts), so one bad rule loses only itself.
     */
    permissions: { schema: permissionsSchema, scopes: ANY },
    /**
     * The chat tells the user when an answer that took more than `afterSeconds`
     * (default 10) ends or a review waits, unless the terminal says it has
     * focus: OSC 9, OSC 777, kitty's OSC 99 or the bell (`method`, default
     * auto: by terminal). User only: a project must not ring the user's bell.
     */
    notifications: {
        schema: lazySchema((z) =>
            z.object({
                enabled: z.boolean().optional(),
                afterSeconds: z.number().nonnegative().max(86_400).optional(),
                method: z.enum(["auto", "osc9", "osc777", "osc99", "bell"]).optional(),
            })
        ),
        scopes: USER,
    },
    /**
     * Claude Code's status-line command: run with the session as JSON on
     * stdin, the first line it prints is shown. A project's runs only in a
     * trusted project (it is the repository's code).
     */
    statusLine: {
        schema: lazySchema((z) =>
            z.object({
                type: z.literal("command"),
                command: z.string().min(1),
                padding: z.number().int().nonnegative().max(20).optional(),
            })
        ),
        scopes: ANY,
    },
    /**
     * The provider's server-side web search (Anthropic, OpenAI Responses), off
     * by default: `maxUses` searches per response (default 5); with
     * `onlyAllowedDomains` only the domains of `WebFetch(domain:…)` allow rules.
     * A project's layer counts only when the project is trusted.
     */
    webSearch: {
        schema: lazySchema((z) =>
            z.object({
                enabled: z.boolean().optional(),
                maxUses: z.number().int().min(1).max(50).optional(),
                onlyAllowedDomains: z.boolean().optional(),
            })
        ),
        scopes: ANY,
    },
    /**
     * Usage monitoring (OpenTelemetry export to the user's collector; README
     * "Usage monitoring"). User only: a project must not be able to send your
     * usage to its collector. `OTEL_*` variables win over these fields.
     */
    telemetry: {
        schema: lazySchema((z) =>
            z.object({
                enabled: z.boolean().optional(),
                metricsExporter: z.enum(["otlp", "none"]).optional(),
                logsExporter: z.enum(["otlp", "none"]).optional(),
                protocol: z.enum(["http/json", "http/protobuf", "grpc"]).optional(),
                endpoint: z.string().url().optional(),
                metricsEndpoint: z.string().url().optional(),
                logsEndpoint: z.string().url().optional(),
                headers: z.record(z.string(), z.string()).optional(),
                metricExportIntervalMs: z.number().int().min(100).optional(),
                logsExportIntervalMs: z.number().int().min(100).optional(),
                resourceAttributes: z.record(z.string(), z.string()).optional(),
                logUserPrompts: z.boolean().optional(),
                logToolDetails: z.boolean().optional(),
            })
        ),
        scopes: USER,
    },
    /**
     * `north -p --attempts N`: at most `maxParallel` attempts (child processes)
     * run at once (default 4). User only: how many processes run is the machine's owner's choice.
     */
    attempts: {
        schema: lazySchema((z) =>
            z.object({ maxParallel: z.number().int().min(1).max(16).optional() })
        ),
        scopes: USER,
    },
    /**
     * Code review (`/review`, `north review`): findings under `minConfidence`
     * (0..1, default 0.5) are dropped and counted; `parallel` (default true)
     * runs focused reviewers (correctness, security, tests) at once on a large diff.
     */
    review: {
        schema: lazySchema((z) =>
            z.object({
                minConfidence: z.number().min(0).max(1).optional(),
                parallel: z.boolean().optional(),
            })
        ),
        scopes: ANY,
    },
    /**
     * Claude Code's `enabledPlugins`: `{ "name@market": true|false }` turns an
     * installed plugin on or off here; a project's entries count only once it is trusted.
     */
    enabledPlugins: {
        schema: lazySchema((z) => z.record(z.string(), z.boolean())),
        scopes: ANY,
    },
    /**
     * Claude Code's `extraKnownMarketplaces`: marketplaces a project expects,
     * `{ name: { source: { source: "github", repo } | { source: "git", url } | … } }`.
     * Listed by the trust prompt; adding one takes the user's own yes.
     */
    extraKnownMarketplaces: {
        schema: lazySchema((z) =>
            z.record(
                z.string(),
                z.object({ source: z.record(z.string(), z.unknown()) }).passthrough()
            )
        ),
        scopes: ANY,
    },
    /** The output style of new conversations (`/output-style`): a style's name, or "default". */
    outputStyle: { schema: lazySchema((z) => z.string().min(1)), scopes: ANY },
    /** Model turns one chat prompt may take before the run stops (default 100). */
    maxTurns: { schema: lazySchema((z) => z.number().int().min(1).max(10_000)), scopes: ANY },
} as const satisfies Record<string, KeySpec>;

export type SettingsKey = keyof typeof SETTINGS_KEYS;

/** One file's settings, validated: only known keys of its layer, with good values. */
export type Settings = {
    -readonly [K in SettingsKey]?: z.infer<ReturnType<(typeof SETTINGS_KEYS)[K]["schema"]>>;
};

function schemaOf(spec: KeySpec): z.ZodType {
    return spec.schema();
}

/** A problem with one file: `fatal` ones make a user file unusable (bad values). */
export interface SettingsIssue {
    message: string;
    fatal: boolean;
}

const KEY_NAMES = Object.keys(SETTINGS_KEYS) as SettingsKey[];

function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownKey(file: string, path: string, key: string, known: string[]): string {
    const [near] = closestMatches(key, known, 1);
    const hint = near !== undefined && near !== key ? ` (did you mean "${near}"?)` : "";
    return `${file}: unknown setting "${path}${key}"${hint}; ignored`;
}

/** Unknown keys below a known one (a provider's `baseURL`, a model's `contextLimit`…). */
function nestedUnknownKeys(
    schema: z.ZodType,
    value: unknown,
    path: string,
    file: string,
    out: string[]
): void {
    const { ZodArray, ZodObject, ZodOptional, ZodRecord, ZodUnion } = zod();
    if (schema instanceof ZodOptional) {
        nestedUnknownKeys(schema.unwrap() as z.ZodType, value, path, file, out);
    } else if (schema instanceof ZodObject && isRecord(value)) {
        const shape = schema.shape as Record<string, z.ZodType>;
        const known = Object.keys(shape);
        for (const [key, inner] of Object.entries(value)) {
            const sub = shape[key];
            if (sub === undefined) out.push(unknownKey(file, path, key, known));
            else nestedUnknownKeys(sub, inner, `${path}${key}.`, file, out);
        }
    } else if (schema instanceof ZodRecord && isRecord(value)) {
        for (const [key, inner] of Object.entries(value)) {
            nestedUnknownKeys(schema.valueType as z.ZodType, inner, `${path}${key}.`, file, out);
        }
    } else if (schema instanceof ZodUnion && isRecord(value)) {
        const object = schema.options.find((option) => option instanceof ZodObject);
        if (object) nestedUnknownKeys(object as z.ZodType, value, path, file, out);
    } else if (schema instanceof ZodArray && Array.isArray(value)) {
        value.forEach((inner, i) =>
            nestedUnknownKeys(schema.element as z.ZodType, inner, `${path}${i}.`, file, out)
        );
    }
}

const WHERE: Record<SettingsScope, string> = {
    user: "a user setting: set it in ~/.config/north/config.json",
    project: "a project setting: set it in .north/settings.json or .north/settings.local.json",
};

/**
 * Validates one parsed settings file for `scope`, key by key: what is valid
 * is kept, the rest is reported. `allowed` narrows the keys further (the older
 * `.north/autoaccept.json` holds only its two switches when it is moved:
 * storage/legacy-approvals.ts).
 */
export function validateSettings(
    json: unknown,
    file: string,
    scope: SettingsScope,
    allowed: readonly SettingsKey[] = KEY_NAMES
): { settings: Settings; issues: SettingsIssue[] } {
    const settings: Record<string, unknown> = {};
    const issues: SettingsIssue[] = [];
    if (!isRecord(json)) {
        issues.push({ message: `${file}: settings must be a JSON object`, fatal: true });
        return { settings, issues };
    }
    for (const [key, value] of Object.entries(json)) {
        const spec = allowed.includes(key as SettingsKey)
            ? (SETTINGS_KEYS[key as SettingsKey] as KeySpec)
            : undefined;
        if (spec === undefined) {
            issues.push({ message: unknownKey(file, "", key, [...allowed]), fatal: false });
            continue;
        }
        if (!spec.scopes.includes(scope)) {
            const other = spec.scopes.includes("user") ? "user" : "project";
            issues.push({
                message: `${file}: "${key}" is ${WHERE[other]}; ignored here`,
                fatal: false,
            });
            continue;
        }
        const schema = schemaOf(spec);
        const parsed = schema.safeParse(value);
        if (!parsed.success) {
            const detail = parsed.error.issues
                .map((issue) => `${[key, ...issue.path].join(".")}: ${issue.message}`)
                .join("; ");
            issues.push({ message: `${file} is invalid: ${detail}`, fatal: true });
            continue;
        }
        const nested: string[] = [];
        nestedUnknownKeys(schema, value, `${key}.`, file, nested);
        issues.push(...nested.map((message) => ({ message, fatal: false })));
        settings[key] = parsed.data;
    }
    return { settings: settings as Settings, issues };
}

/**
 * The JSON Schema of a user settings file with nothing to report: only the
 * user keys, no unknown key at any depth. The build writes it into the bundle
 * (scripts/tool-schemas.mjs) for the check without zod (plain-load.ts).
 */
export function userFileJsonSchema(): Record<string, unknown> {
    const { toJSONSchema } = zod();
    const properties: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(SETTINGS_KEYS) as Array<[SettingsKey, KeySpec]>) {
        if (!spec.scopes.includes("user")) continue;
        const { $schema: _dialect, ...schema } = toJSONSchema(schemaOf(spec), {
            unrepresentable: "throw",
        });
        properties[key] = schema;
    }
    return { type: "object", properties, additionalProperties: false };
}
