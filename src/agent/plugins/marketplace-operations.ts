/**
 * Marketplaces: add (a hardened clone pinned to one commit), update (fetch and
 * move the pin, only when asked), remove, list, and reading a clone's
 * catalogue. Nothing of a marketplace runs: it is a clone and a JSON read.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import {
    type MarketplaceManifest,
    parseMarketplaceManifest,
} from "../../project/plugins/marketplace-manifest";
import {
    GitFetchError,
    checkoutCommit,
    cloneAtCommit,
    isBareRepository,
    refetch,
    repositoryTop,
} from "../../storage/plugins/git-fetch";
import {
    type MarketplaceRecord,
    type PluginSource,
    marketplaceCloneDir,
    readMarketplaces,
    stagingDir,
    writeMarketplace,
} from "../../storage/plugins/store";
import { readRegularTextSync, unreadableText } from "../../util/read-regular-file";
import { PluginError } from "./plugin-error";
import { describeSource, sameSource, sourceFetchUrl } from "./marketplace-source";

export interface PluginContext {
    /** North's data folder (`~/.north`); plugin state lives in its `plugins/`. */
    dataDir: string;
    /** `${CLAUDE_PROJECT_DIR}` for reading plugins. */
    projectDir: string;
    signal?: AbortSignal;
}

/** A marketplace folder name: what `marketplace.json` calls it, safe as a path segment. */
const MARKETPLACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The catalogue of a clone (`.claude-plugin/marketplace.json`), or a PluginError saying what is wrong. */
export function readCatalogue(
    root: string,
    label: string
): { manifest: MarketplaceManifest; warnings: string[] } {
    const file = join(root, ".claude-plugin", "marketplace.json");
    if (!existsSync(file)) {
        throw new PluginError(
            `${label} has no .claude-plugin/marketplace.json: it is not a plugin marketplace`
        );
    }
    let text: string;
    try {
        text = readRegularTextSync(file, {
            insideRoot: root,
            rootName: "the marketplace",
            label: `${label}: .claude-plugin/marketplace.json`,
        });
    } catch (error) {
        throw new PluginError(unreadableText(error, (message) => `${label}: ${message}`));
    }
    const parsed = parseMarketplaceManifest(text, `${label}: .claude-plugin/marketplace.json`);
    if (!parsed.ok) throw new PluginError(parsed.error);
    if (!MARKETPLACE_NAME.test(parsed.manifest.name)) {
        throw new PluginError(
            `${label}: marketplace name ${JSON.stringify(parsed.manifest.name)} is not a usable name ` +
                `(letters, digits, ".", "_" and "-")`
        );
    }
    return { manifest: parsed.manifest, warnings: parsed.warnings };
}

async function checkLocalRepository(path: string): Promise<void> {
    let isDir = false;
    try {
        isDir = statSync(path).isDirectory();
    } catch {
        throw new PluginError(`${path} does not exist`);
    }
    if (!isDir) throw new PluginError(`${path} is not a folder`);
    if (await isBareRepository(path)) return;
    const top = await repositoryTop(path);
    const notRepo =
        `${path} is not a git repository: North pins a marketplace to a commit; ` +
        "run `git init && git commit` there, or add its git URL";
    if (top === undefined) throw new PluginError(notRepo);
    if (statSync(top).ino !== statSync(path).ino) {
        throw new PluginError(
            `${path} is inside the git repository ${top}, not its top folder; add ${top}`
        );
    }
}

function fetchError(error: unknown): never {
    if (error instanceof GitFetchError) throw new PluginError(error.message);
    throw error;
}

/** Clones the source (pinned to its commit), reads its catalogue, records it under its own name. */
export async function addMarketplace(
    ctx: PluginContext,
    source: PluginSource
): Promise<MarketplaceRecord> {
    if (source.kind === "local") await checkLocalRepository(source.path);
    const staging = stagingDir(ctx.dataDir);
    mkdirSync(staging, { recursive: true });
    const temp = mkdtempSync(join(staging, "marketplace-"));
    try {
        const commit = await cloneAtCommit(temp, {
            url: sourceFetchUrl(source),
            ref: source.ref,
            signal: ctx.signal,
        }).catch(fetchError);
        const { manifest } = readCatalogue(temp, describeSource(source));
        const existing = readMarketplaces(ctx.dataDir)[manifest.name];
        if (existing !== undefined) {
            if (sameSource(existing.source, source)) return existing;
            throw new PluginError(
                `a marketplace named ${manifest.name} is already added from ${describeSource(existing.source)}; ` +
                    `remove it first (north plugin marketplace remove ${manifest.name})`
            );
        }
        const path = marketplaceCloneDir(ctx.dataDir, manifest.name);
        mkdirSync(join(path, ".."), { recursive: true });
        rmSync(path, { recursive: true, force: true });
        renameSync(temp, path);
        const now = new Date().toISOString();
        const record: MarketplaceRecord = {
            name: manifest.name,
            source,
            path,
            commit,
            addedAt: now,
            updatedAt: now,
        };
        writeMarketplace(ctx.dataDir, manifest.name, record);
        return record;
    } finally {
        rmSync(temp, { recursive: true, force: true });
    }
}

function marketplaceOrThrow(ctx: PluginContext, name: string): MarketplaceRecord {
    const record = readMarketplaces(ctx.dataDir)[name];
    if (record === undefined) {
        const known = Object.keys(readMarketplaces(ctx.dataDir));
        throw new PluginError(
            `no marketplace named ${name}` +
                (known.length ? ` (added: ${known.join(", ")})` : " (none added)")
        );
    }
    return record;
}

/** Fetches one marketplace (or all) and moves its pin to the new commit; a broken new catalogue keeps the old pin. */
export async function updateMarketplaces(
    ctx: PluginContext,
    name?: string
): Promise<MarketplaceRecord[]> {
    const records =
        name === undefined
            ? Object.values(readMarketplaces(ctx.dataDir))
            : [marketplaceOrThrow(ctx, name)];
    const out: MarketplaceRecord[] = [];
    for (const record of records) {
        if (!existsSync(record.path)) {
            throw new PluginError(
                `${record.name}'s clone ${record.path} is missing; remove and add the marketplace again`
            );
        }
        const commit = await refetch(record.path, {
            url: sourceFetchUrl(record.source),
            ref: record.source.ref,
            signal: ctx.signal,
        }).catch(fetchError);
        try {
            const { manifest } = readCatalogue(record.path, record.name);
            if (manifest.name !== record.name) {
                throw new PluginError(
                    `${record.name} now calls itself ${manifest.name}; remove it and add it again to take the new name`
                );
            }
        } catch (error) {
            if (record.commit) await checkoutCommit(record.path, record.commit);
            throw error;
        }
        const updated: MarketplaceRecord = {
            ...record,
            commit,
            updatedAt: new Date().toISOString(),
        };
        writeMarketplace(ctx.dataDir, record.name, updated);
        out.push(updated);
    }
    return out;
}

export function listMarketplaces(ctx: PluginContext): MarketplaceRecord[] {
    return Object.values(readMarketplaces(ctx.dataDir)).sort((a, b) =>
        a.name.localeCompare(b.name)
    );
}

export function getMarketplace(ctx: PluginContext, name: string): MarketplaceRecord {
    return marketplaceOrThrow(ctx, name);
}
