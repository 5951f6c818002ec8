import { afterEach, describe, expect, it } from "vitest";
import { parsePluginManifest } from "../../src/project/plugins/manifest";
import {
    parseMarketplaceManifest,
    resolveEntrySource,
} from "../../src/project/plugins/marketplace-manifest";
import { json, pluginDir, type PluginDir } from "./format-helpers";

const dirs: PluginDir[] = [];
const make = (files: Record<string, string>, name?: string): PluginDir => {
    const dir = pluginDir(files, name);
    dirs.push(dir);
    return dir;
};
afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove();
});

describe("plugin.json", () => {
    it("not JSON: the plugin fails, naming the file", async () => {
        const error = await make({ ".claude-plugin/plugin.json": '{ "name": "demo", ' }).fail();
        expect(error).toContain(".claude-plugin/plugin.json");
        expect(error).toContain("not valid JSON");
    });

    it("not an object: fails", async () => {
        const error = await make({ ".claude-plugin/plugin.json": "[1, 2]" }).fail();
        expect(error).toMatch(/plugin\.json: must be a JSON object/);
    });

    it.each([
        [{ name: 7 }, '"name" must be a string'],
        [{ name: "demo", keywords: "one, two" }, '"keywords" must be a list of strings'],
        [{ name: "demo", version: 2 }, '"version" must be a string'],
        [{ name: "demo", author: "Someone" }, '"author" must be an object with a "name"'],
        [{ name: "demo", commands: 3 }, '"commands" must be a path or a list of paths'],
        [{ name: "demo", agents: ["./a", 1] }, '"agents" must be a path or a list of paths'],
        [{ name: "demo", hooks: 5 }, '"hooks" must be a path, an object, or a list of them'],
        [{ name: "demo", defaultEnabled: "yes" }, '"defaultEnabled" must be true or false'],
    ])("wrong type %j: fails naming the field", async (fields, message) => {
        const error = await make({ ".claude-plugin/plugin.json": json(fields) }).fail();
        expect(error).toContain(".claude-plugin/plugin.json");
        expect(error).toContain(message);
    });

    it.each(["my plugin", "a:b", "a/b", "@x", ""])(
        "a name that could not prefix a command (%j): fails",
        async (name) => {
            const error = await make({ ".claude-plugin/plugin.json": json({ name }) }).fail();
            expect(error).toContain("cannot prefix a command");
        }
    );

    it("unknown keys are warnings; unsupported fields are listed and the rest loads", async () => {
        const plugin = await make({
            ".claude-plugin/plugin.json": json({
                name: "demo",
                $schema: "https://json.schemastore.org/claude-code-plugin-manifest.json",
                metadata: { any: 1 },
                colour: "blue",
                dependencies: ["other"],
                userConfig: { KEY: { type: "string" } },
                channels: [{ server: "x" }],
                workflows: "./workflows",
                experimental: { themes: "./themes" },
                mcpServers: "./server.mcpb",
            }),
            "commands/hi.md": "Say hi.\n",
            "bin/tool": "#!/bin/sh\n",
            "settings.json": json({ agent: "x" }),
            "monitors/monitors.json": "[]",
        }).load();
        expect(plugin.commands.map((c) => c.name)).toEqual(["demo:hi"]);
        expect(plugin.warnings).toEqual([
            '.claude-plugin/plugin.json: unknown field "colour" ignored',
        ]);
        const unsupported = plugin.unsupported.join("\n");
        for (const word of [
            "dependencies (plugin dependencies are not supported",
            "userConfig",
            "channels",
            "workflows",
            "experimental",
            "./server.mcpb (.mcpb bundles are not supported)",
            "bin/",
            "settings.json",
            "monitors/",
        ]) {
            expect(unsupported).toContain(word);
        }
    });

    it("no manifest: the name comes from the marketplace entry, else the folder", async () => {
        const dir = make({ "commands/a.md": "A\n" }, "folder-name");
        expect((await dir.load()).id).toBe("folder-name@market");
        const fromEntry = await dir.load({ entry: { name: "entry-name", source: "./x" } });
        expect(fromEntry.id).toBe("entry-name@market");
        expect(fromEntry.commands[0]?.name).toBe("entry-name:a");
    });

    it("plugin.json's version wins over the entry's; the entry's name is the id", async () => {
        const plugin = await make({
            ".claude-plugin/plugin.json": json({ name: "inner", version: "2.0.0" }),
        }).load({ entry: { name: "outer", source: "./x", version: "1.0.0", description: "d" } });
        expect(plugin.id).toBe("outer@market");
        expect(plugin.version).toBe("2.0.0");
        expect(plugin.description).toBe("d");
        expect(plugin.warnings.join("\n")).toContain("the marketplace entry's name outer is used");
    });

    it("parsePluginManifest alone reports the same errors", () => {
        expect(parsePluginManifest("nope", "p.json")).toEqual({
            ok: false,
            error: expect.stringContaining("p.json: not valid JSON") as string,
        });
    });
});

describe("marketplace.json", () => {
    const file = ".claude-plugin/marketplace.json";

    it("reads the catalogue; bad entries are skipped with a warning, duplicates keep the first", () => {
        const result = parseMarketplaceManifest(
            json({
                name: "team-tools",
                owner: { name: "Team" },
                metadata: { description: "ours", pluginRoot: "./plugins" },
                plugins: [
                    { name: "one", source: "./plugins/one", category: "dev" },
                    { name: "two", source: { source: "github", repo: "o/two" }, strict: false },
                    { name: "one", source: "./plugins/other" },
                    { source: "./nameless" },
                    { name: "nosource" },
                    "text",
                    { name: "bad-strict", source: "./x", strict: "no" },
                ],
            }),
            file
        );
        if (!result.ok) throw new Error(result.error);
        expect(result.manifest.name).toBe("team-tools");
        expect(result.manifest.owner).toEqual({ name: "Team" });
        expect(result.manifest.description).toBe("ours");
        expect(result.manifest.pluginRoot).toBe("./plugins");
        expect(result.manifest.plugins.map((p) => [p.name, p.strict, p.category])).toEqual([
            ["one", true, "dev"],
            ["two", false, undefined],
        ]);
        expect(result.warnings).toHaveLength(5);
        expect(result.warnings.join("\n")).toContain("plugin one is listed twice");
        expect(result.warnings.join("\n")).toContain('plugin nosource has no "source"');
    });

    it.each([
        ["{", "not valid JSON"],
        ["[]", "must be a JSON object"],
        [json({ plugins: [] }), '"name" must be a kebab-case string'],
        [json({ name: "bad name", plugins: [] }), '"name" must be a kebab-case string'],
        [json({ name: "ok" }), '"plugins" must be a list'],
    ])("%s: the whole file is refused", (text, message) => {
        const result = parseMarketplaceManifest(text, file);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error).toContain(message);
    });

    it("sources: relative, github, url, git-subdir, and the unsupported kinds", () => {
        const root = "/m";
        const at = (source: unknown, pluginRoot?: string) =>
            resolveEntrySource({ name: "p", source: source as string }, root, pluginRoot);
        expect(at("./plugins/p")).toEqual({ kind: "relative", path: "/m/plugins/p" });
        expect(at("p", "./plugins")).toEqual({ kind: "relative", path: "/m/plugins/p" });
        expect(at("./../p").kind).toBe("unsupported");
        expect(at("/etc").kind).toBe("unsupported");
        const sha = "a".repeat(40);
        expect(at({ source: "github", repo: "o/r", ref: "v1", sha })).toEqual({
            kind: "github",
            repo: "o/r",
            ref: "v1",
            sha,
        });
        expect(at({ source: "github", repo: "not a repo" }).kind).toBe("unsupported");
        expect(at({ source: "github", repo: "o/r", sha: "abc" }).kind).toBe("unsupported");
        expect(at({ source: "url", url: "https://h/x.git" })).toEqual({ kind: "git", url: "https://h/x.git" });
        expect(at({ source: "url", url: "--upload-pack=x" }).kind).toBe("unsupported");
        expect(at({ source: "git-subdir", url: "o/r", path: "plugins/p" })).toEqual({
            kind: "git",
            url: "https://github.com/o/r.git",
            path: "plugins/p",
        });
        expect(at({ source: "git-subdir", url: "o/r", path: "../x" }).kind).toBe("unsupported");
        for (const kind of ["npm", "archive", "command", "zip"]) {
            expect(at({ source: kind, package: "x" }).kind).toBe("unsupported");
        }
    });
});
