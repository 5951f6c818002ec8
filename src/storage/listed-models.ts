/**
 * The models providers listed at the last `north models --refresh`, kept in
 * North's data folder so completion and `/model` can offer them.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../util/atomic-write";
import { dataDir } from "./paths";

type Env = Record<string, string | undefined>;

/** One listed model as saved (the shape of providers' `ListedModel`; storage imports no provider code). */
export interface StoredListedModel {
    id: string;
    display?: string;
    contextLimitTokens?: number;
    maxOutputTokens?: number;
    pricing?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

export interface ListedModelsCache {
    /** ISO time of the refresh. */
    refreshedAt: string;
    /** Per provider id: the models listed, or why the list failed. */
    providers: Record<string, { models: StoredListedModel[] } | { error: string }>;
}

export function listedModelsPath(env: Env = process.env): string {
    return join(dataDir(env), "listed-models.json");
}

export function saveListedModels(cache: ListedModelsCache, env: Env = process.env): void {
    const path = listedModelsPath(env);
    mkdirSync(dataDir(env), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(path, `${JSON.stringify(cache, null, 2)}\n`);
}

/** The last refresh's lists; none when never refreshed or the file is unreadable. */
export function loadListedModels(env: Env = process.env): ListedModelsCache | undefined {
    try {
        const parsed = JSON.parse(readFileSync(listedModelsPath(env), "utf8")) as ListedModelsCache;
        return parsed && typeof parsed.providers === "object" ? parsed : undefined;
    } catch {
        return undefined;
    }
}

/** `provider:id` for every listed model, as `--model` takes them. */
export function listedModelNames(cache: ListedModelsCache | undefined): string[] {
    if (!cache) return [];
    return Object.entries(cache.providers).flatMap(([provider, entry]) =>
        "models" in entry && Array.isArray(entry.models)
            ? entry.models.map((m) => `${provider}:${m.id}`)
            : []
    );
}
