import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
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
