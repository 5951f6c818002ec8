import {
    existsSync,
    mkdirSync,
    mkdtempSync,
    readdirSync,
    readFileSync,
    rmSync,
    writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
    type PluginContext,
    PluginError,
    addMarketplace,
    commitPrepared,
    discardPrepared,
    listAvailablePlugins,
    listMarketplaces,
    parsePluginSourceText,
    prepareInstall,
    prepareUpdate,
    removeMarketplace,
    removePlugin,
    setPluginEnabled,
    updateMarketplaces,
} from "../../src/agent/plugins/operations";
import {
    pluginDataDir,
    readInstalledPlugins,
    readMarketplaces,
    stagingDir,
} from "../../src/storage/plugins/store";
import {
    PLUGIN_MARKER_ENV,
    alphaFiles,
    makeTestMarketplace,
    testGit,
} from "../kit/plugin-marketplace";

let root: string;
let ctx: PluginContext;

beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "north-market-"));
    const project = join(root, "project");
    mkdirSync(project);
    ctx = { dataDir: join(root, "data"), projectDir: project };
});

afterEach(() => {
    rmSync(root, { recursive: true, force: true });
});

function staged(): string[] {
    return existsSync(stagingDir(ctx.dataDir)) ? readdirSync(stagingDir(ctx.dataDir)) : [];
}

async function failure(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
        () => undefined,
        (e: unknown) => e
    );
    expect(error).toBeInstanceOf(PluginError);
    return (error as Error).message;
}

describe("parsePluginSourceText", () => {
    it("reads GitHub, git URLs with refs and local paths without touching the network", () => {
        expect(parsePluginSourceText("anthropics/claude-plugins-official", "/w")).toEqual({
            kind: "github",
            repo: "anthropics/claude-plugins-official",
        });
        expect(parsePluginSourceText("owner/repo@v2", "/w")).toEqual({
            kind: "github",
            repo: "owner/repo",
            ref: "v2",
        });
        expect(parsePluginSourceText("https://example.com/x/market.git#main", "/w")).toEqual({
            kind: "git",
            url: "https://example.com/x/market.git",
            ref: "main",
        });
        expect(parsePluginSourceText("git@example.com:team/market.git", "/w")).toEqual({
            kind: "git",
            url: "git@example.com:team/market.git",
        });
        expect(parsePluginSourceText("./market", "/w")).toEqual({
            kind: "local",
            path: "/w/market",
        });
        expect(parsePluginSourceText("/abs/market#dev", "/w")).toEqual({
            kind: "local",
            path: "/abs/market",
            ref: "dev",
        });
        expect(parsePluginSourceText("file:///srv/market", "/w")).toEqual({
            kind: "local",
            path: "/srv/market",
        });
    });

    it("refuses sources North does not support, saying what to use", () => {
        expect(() => parsePluginSourceText("https://example.com/marketplace.json", "/w")).toThrow(
            /not supported.*git URL/
        );
        expect(() => parsePluginSourceText("npm:@acme/plugins", "/w")).toThrow(
            /npm sources are not supported/
        );
        expect(() => parsePluginSourceText("ftp://example.com/x", "/w")).toThrow(/not supported/);
        expect(() => parsePluginSourceText("  ", "/w")).toThrow(/source is needed/);
    });
});

describe("marketplaces", () => {
    it("adds a local git marketplace pinned to its commit; new commits change nothing until update", async () => {
        const market = makeTestMarketplace(root);
        const first = market.commit();
        const record = await addMarketplace(ctx, parsePluginSourceText(market.dir, root));
        expect(record).toMatchObject({ name: "north-test", commit: first });
        expect(existsSync(join(record.path, ".claude-plugin", "marketplace.json"))).toBe(true);
        expect(existsSync(join(record.path, ".git", "hooks"))).toBe(false);
        const names = (await listAvailablePlugins(ctx)).map((plugin) => plugin.id);
        expect(names).toEqual(["alpha@north-test", "beta@north-test"]);

        const manifest = JSON.parse(
            readFileSync(join(market.dir, ".claude-plugin", "marketplace.json"), "utf8")
        );
        manifest.plugins[0].description = "Changed upstream";
        const second = market.change(".claude-plugin/marketplace.json", JSON.stringify(manifest));
        expect((await listAvailablePlugins(ctx))[0]!.description).toBe("The alpha test plugin");
        expect(readMarketplaces(ctx.dataDir)["north-test"]!.commit).toBe(first);

        const [updated] = await updateMarketplaces(ctx, "north-test");
        expect(updated!.commit).toBe(second);
        expect((await listAvailablePlugins(ctx))[0]!.description).toBe("Changed upstream");
        expect(listMarketplaces(ctx).map((m) => m.commit)).toEqual([second]);
        expect(staged()).toEqual([]);
    });

    it("adding the same source again is a no-op; another source under the same name is refused", async () => {
        const market = makeTestMarketplace(root);
        await addMarketplace(ctx, { kind: "local", path: market.dir });
        await addMarketplace(ctx, { kind: "local", path: market.dir });
        const other = makeTestMarketplace(join(root, "elsewhere"));
        const message = await failure(addMarketplace(ctx, { kind: "local", path: other.dir }));
        expect(message).toContain("already added");
        expect(message).toContain("north plugin marketplace remove north-test");
        expect(staged()).toEqual([]);
    });

    it("refuses a folder that is not a git repository, one without marketplace.json and a broken one", async () => {
        const plain = makeTestMarketplace(root, { name: "plain", noGit: true });
        expect(await failure(addMarketplace(ctx, { kind: "local", path: plain.dir }))).toMatch(
            /is not a git repository: North pins a marketplace to a commit; run `git init && git commit` there/
        );
        const empty = join(root, "empty");
        mkdirSync(empty);
        writeFileSync(join(empty, "README.md"), "no catalogue\n");
        testGit(empty, "init", "-q");
        testGit(empty, "add", "-A");
        testGit(empty, "commit", "-q", "-m", "readme");
        expect(await failure(addMarketplace(ctx, { kind: "local", path: empty }))).toContain(
            "has no .claude-plugin/marketplace.json"
        );
        const broken = makeTestMarketplace(root, {
            name: "broken",
            files: { ".claude-plugin/marketplace.json": "{ not json" },
        });
        expect(await failure(addMarketplace(ctx, { kind: "local", path: broken.dir }))).toContain(
            "marketplace.json"
        );
        expect(readMarketplaces(ctx.dataDir)).toEqual({});
        expect(staged()).toEqual([]);
    });

    it("a source that needs credentials fails at once with a message, without prompting", async () => {
        let requests = 0;
        const server = createServer((_request, response) => {
            requests += 1;
            response.writeHead(401, { "WWW-Authenticate": 'Basic realm="plugins"' });
            response.end("Unauthorized");
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        try {
            const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/team/market.git`;
            const started = Date.now();
            const message = await failure(addMarketplace(ctx, parsePluginSourceText(url, root)));
            expect(message).toContain(`${url} needs credentials; North does not prompt for them`);
            expect(Date.now() - started).toBeLessThan(20_000);
            expect(requests).toBeGreaterThan(0);
            expect(readMarketplaces(ctx.dataDir)).toEqual({});
            expect(staged()).toEqual([]);
        } finally {
            server.close();
        }
    });
});

describe("installing", () => {
    it("installs, enables, disables and removes; the copy is pinned and nothing of the plugin runs", async () => {
        const marker = join(root, "marker.txt");
        process.env[PLUGIN_MARKER_ENV] = marker;
        const market = makeTestMarketplace(root);
        // A git hook in the marketplace repository: no fetch or checkout of North's may run it.
        writeFileSync(
            join(market.dir, ".git", "hooks", "post-checkout"),
            `#!/bin/sh\necho post-checkout >> "${marker}"\n`,
            { mode: 0o755 }
        );
        try {
            await addMarketplace(ctx, { kind: "local", path: market.dir });
            const prepared = await prepareInstall(ctx, "alpha@north-test");
            expect(prepared.needsApproval).toBe(true);
            expect(prepared.inventory.hooks.map((hook) => hook.command).join("\n")).toContain(
                "${CLAUDE_PLUGIN_ROOT}/hooks/mark.mjs"
            );
            const record = await commitPrepared(ctx, prepared);
            expect(record).toMatchObject({
                id: "alpha@north-test",
                enabled: true,
                commit: market.commit(),
            });
            expect(record.path).toBe(
                join(
                    ctx.dataDir,
                    "plugins",
                    "cache",
                    "north-test",
                    "alpha",
                    record.version ?? market.commit().slice(0, 12)
                )
            );
            expect(existsSync(join(record.path, "hooks", "mark.mjs"))).toBe(true);
            expect(existsSync(prepared.staged)).toBe(false);
            const beta = await prepareInstall(ctx, "beta@north-test");
            await commitPrepared(ctx, beta);
            expect(existsSync(marker)).toBe(false);

            expect(setPluginEnabled(ctx, "alpha@north-test", false).enabled).toBe(false);
            expect(readInstalledPlugins(ctx.dataDir)["alpha@north-test"]!.enabled).toBe(false);
            expect((await listAvailablePlugins(ctx))[0]).toMatchObject({
                installed: true,
                enabled: false,
            });
            setPluginEnabled(ctx, "alpha@north-test", true);

            const data = pluginDataDir(ctx.dataDir, "alpha@north-test");
            mkdirSync(data, { recursive: true });
            await removePlugin(ctx, "alpha@north-test");
            expect(existsSync(record.path)).toBe(false);
            expect(existsSync(data)).toBe(false);
            expect(Object.keys(readInstalledPlugins(ctx.dataDir))).toEqual(["beta@north-test"]);

            const { removedPlugins } = await removeMarketplace(ctx, "north-test");
            expect(removedPlugins).toEqual(["beta@north-test"]);
            expect(readInstalledPlugins(ctx.dataDir)).toEqual({});
            expect(readMarketplaces(ctx.dataDir)).toEqual({});
            expect(existsSync(join(ctx.dataDir, "plugins", "marketplaces", "north-test"))).toBe(
                false
            );
            expect(existsSync(join(ctx.dataDir, "plugins", "cache", "north-test"))).toBe(false);
            expect(existsSync(marker)).toBe(false);
        } finally {
            delete process.env[PLUGIN_MARKER_ENV];
        }
    });

    it("keeps its data with keepData, and a discarded install leaves nothing", async () => {
        const market = makeTestMarketplace(root);
        await addMarketplace(ctx, { kind: "local", path: market.dir });
        const discarded = await prepareInstall(ctx, "beta@north-test");
        await discardPrepared(discarded);
        expect(staged()).toEqual([]);
        expect(readInstalledPlugins(ctx.dataDir)).toEqual({});
        await commitPrepared(ctx, await prepareInstall(ctx, "beta@north-test"));
        const data = pluginDataDir(ctx.dataDir, "beta@north-test");
        mkdirSync(data, { recursive: true });
        await removePlugin(ctx, "beta@north-test", { keepData: true });
        expect(existsSync(data)).toBe(true);
    });

    it("an update with the same files needs no yes; a changed hook asks again, and old copies go one update later", async () => {
        const market = makeTestMarketplace(root);
        await addMarketplace(ctx, { kind: "local", path: market.dir });
        const first = await commitPrepared(ctx, await prepareInstall(ctx, "alpha@north-test"));

        market.change("plugins/beta/README.md", "beta only\n");
        const same = await prepareUpdate(ctx, "alpha@north-test");
        expect("upToDate" in same && same.record.fingerprint).toBe(first.fingerprint);

        const hooks = JSON.parse(alphaFiles()["hooks/hooks.json"]!);
        hooks.description = "changed";
        market.change("plugins/alpha/hooks/hooks.json", JSON.stringify(hooks));
        const changed = await prepareUpdate(ctx, "alpha@north-test");
        if ("upToDate" in changed) throw new Error("expected a change");
        expect(changed.needsApproval).toBe(true);
        expect(changed.previous?.fingerprint).toBe(first.fingerprint);
        expect(changed.previousInventory?.id).toBe("alpha@north-test");
        const second = await commitPrepared(ctx, changed);
        expect(second.path).not.toBe(first.path);
        expect(existsSync(first.path)).toBe(true);

        market.change("plugins/alpha/commands/greet.md", "Say hi to $ARGUMENTS.\n");
        const third = await prepareUpdate(ctx, "alpha@north-test");
        if ("upToDate" in third) throw new Error("expected a change");
        const record = await commitPrepared(ctx, third);
        expect(existsSync(record.path)).toBe(true);
        expect(existsSync(second.path)).toBe(true);
        expect(existsSync(first.path)).toBe(false);
    });

    it("skips a symlink out of the plugin with a warning and never follows it", async () => {
        const secret = join(root, "secret.txt");
        writeFileSync(secret, "do not copy\n");
        const market = makeTestMarketplace(root, {
            symlinks: {
                "plugins/alpha/outside.txt": secret,
                "plugins/alpha/inside.md": "commands/greet.md",
            },
        });
        await addMarketplace(ctx, { kind: "local", path: market.dir });
        const prepared = await prepareInstall(ctx, "alpha@north-test");
        expect(prepared.warnings).toEqual([
            "outside.txt: a symlink out of the plugin folder; skipped",
        ]);
        expect(prepared.inventory.warnings).toContain(
            "outside.txt: a symlink out of the plugin folder; skipped"
        );
        const record = await commitPrepared(ctx, prepared);
        expect(existsSync(join(record.path, "outside.txt"))).toBe(false);
        expect(readFileSync(join(record.path, "inside.md"), "utf8")).toContain("$ARGUMENTS");
    });

    it("names what is wrong: an unknown plugin, an unknown marketplace, an unsupported source", async () => {
        const market = makeTestMarketplace(root, {
            entries: { beta: { source: { source: "npm", package: "beta" } } },
        });
        await addMarketplace(ctx, { kind: "local", path: market.dir });
        expect(await failure(prepareInstall(ctx, "gamma@north-test"))).toBe(
            "marketplace north-test has no plugin gamma (it has: alpha, beta)"
        );
        expect(await failure(prepareInstall(ctx, "alpha@nowhere"))).toContain(
            "no marketplace named nowhere"
        );
        expect(await failure(prepareInstall(ctx, "beta@north-test"))).toContain(
            '"npm" sources are not supported'
        );
        expect(staged()).toEqual([]);
    });
});
