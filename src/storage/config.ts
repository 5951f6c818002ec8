import { chmodSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import * as z from "zod";
import { writeFileAtomicSync } from "./conversations/io";
import { withFileLock } from "./file-lock";
import { configDir } from "./paths";

const pricingSchema = z.object({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cacheRead: z.number().nonnegative().optional(),
    cacheWrite: z.number().nonnegative().optional(),
});

const providerSchema = z.object({
    api: z.enum(["anthropic", "openai-responses", "openai-chat"]).optional(),
    baseUrl: z.string().url().optional(),
    /** Name of the environment variable that holds the key. */
    apiKeyEnv: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    display: z.string().optional(),
});

const modelSchema = z.object({
    alias: z.string().min(1),
    id: z.string().min(1),
    provider: z.string().min(1),
    display: z.string().optional(),
    contextLimitTokens: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    thinkingBudget: z.number().int().positive().optional(),
    pricing: pricingSchema.optional(),
});

export const userConfigSchema = z.object({
    selectedModel: z.string().optional(),
    providers: z.record(z.string(), providerSchema).optional(),
    models: z.array(modelSchema).optional(),
    /** MCP servers for every project, in `.mcp.json`'s shape. */
    mcpServers: z.record(z.string(), z.unknown()).optional(),
});

export type UserConfig = z.infer<typeof userConfigSchema>;
export type UserProviderConfig = z.infer<typeof providerSchema>;
export type UserModelConfig = z.infer<typeof modelSchema>;

export type ConfigLoadResult =
    { ok: true; config: UserConfig; path: string } | { ok: false; error: string; path: string };

export function configFilePath(env: Record<string, string | undefined> = process.env): string {
    return join(configDir(env), "config.json");
}

/** Reads the global config; a missing file is an empty config, a broken one a clear error. */
export function loadUserConfig(
    env: Record<string, string | undefined> = process.env
): ConfigLoadResult {
    const path = configFilePath(env);
    let text: string;
    try {
        text = readFileSync(path, "utf8");
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT")
            return { ok: true, config: {}, path };
        return { ok: false, path, error: `cannot read ${path}: ${(error as Error).message}` };
    }
    let json: unknown;
    try {
        json = JSON.parse(text);
    } catch (error) {
        return { ok: false, path, error: `${path} is not valid JSON: ${(error as Error).message}` };
    }
    const parsed = userConfigSchema.safeParse(json);
    if (!parsed.success) {
        const issues = parsed.error.issues
            .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
            .join("; ");
        return { ok: false, path, error: `${path} is invalid: ${issues}` };
    }
    return { ok: true, config: parsed.data, path };
}

/**
 * Saves the model chosen with `/model` as `selectedModel`, keeping every other
 * field of the file as written (unknown ones too). Locked and atomic: a
 * reader sees the old file or the new one. A file that is not a JSON object
 * is left alone and reported.
 */
export function saveSelectedModel(
    name: string,
    env: Record<string, string | undefined> = process.env
): { ok: true; path: string } | { ok: false; path: string; error: string } {
    const path = configFilePath(env);
    try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        return withFileLock(path, () => {
            let config: Record<string, unknown> = {};
            let mode: number | undefined;
            let text: string | null = null;
            try {
                text = readFileSync(path, "utf8");
                mode = statSync(path).mode & 0o777;
            } catch (error) {
                if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
            }
            if (text !== null && text.trim() !== "") {
                let json: unknown;
                try {
                    json = JSON.parse(text);
                } catch (error) {
                    return {
                        ok: false as const,
                        path,
                        error: `${path} is not valid JSON (${(error as Error).message}); it was left as is`,
                    };
                }
                if (typeof json !== "object" || json === null || Array.isArray(json)) {
                    return {
                        ok: false as const,
                        path,
                        error: `${path} is not a JSON object; it was left as is`,
                    };
                }
                config = json as Record<string, unknown>;
            }
            config.selectedModel = name;
            writeFileAtomicSync(path, JSON.stringify(config, null, 2) + "\n", true);
            if (mode !== undefined) chmodSync(path, mode);
            return { ok: true as const, path };
        });
    } catch (error) {
        return { ok: false, path, error: `could not write ${path}: ${(error as Error).message}` };
    }
}
