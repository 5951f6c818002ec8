/**
 * Plugins' language servers in the language service: named
 * `plugin:<plugin>:<server>`, from "plugin name@marketplace", after the
 * user's own and before the built-ins; a second claim on an extension is
 * listed as not started; a plugin that leaves gives its extensions back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLanguageService } from "../../src/tools/lsp/manager";

let repo: string;
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-plugin-lsp-"));
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
});

const server = (ext: string) => ({
    command: "node",
    args: ["--version"],
    extensionToLanguage: { [ext]: "typescript" },
});

describe("plugin language servers", () => {
    it("registers them with their plugin, first claim wins, and stops them when the plugin leaves", async () => {
        const warnings: string[] = [];
        const languages = createLanguageService({
            repoRoot: repo,
            trusted: true,
            builtIns: [],
            warn: (m) => warnings.push(m),
            pluginServers: [
                { plugin: "a@m", name: "a", servers: { ts: server(".ts") }, env: {} },
                { plugin: "b@m", name: "b", servers: { ts: server(".ts"), bad: {} }, env: {} },
            ],
        });
        try {
            const status = languages.status();
            expect(status.map((s) => [s.name, s.origin, s.state])).toEqual([
                ["plugin:a:ts", "plugin a@m", "available"],
                ["plugin:b:ts", "plugin b@m", "available"],
            ]);
            expect(status[1]?.lastError).toBe(
                "not started: its files go to plugin:a:ts, registered first"
            );
            expect(warnings).toEqual([
                'plugin b@m: "bad" needs "command" and "extensionToLanguage"; ignored',
            ]);
            expect(languages.handles(join(repo, "x.ts"))).toBe(true);
            await languages.stopPlugin?.("a@m");
            // b's server takes .ts over; a's leaves the listing.
            expect(languages.handles(join(repo, "x.ts"))).toBe(true);
            expect(languages.status().map((s) => [s.name, s.state, s.lastError])).toEqual([
                ["plugin:b:ts", "available", undefined],
            ]);
            await languages.stopPlugin?.("b@m");
            expect(languages.handles(join(repo, "x.ts"))).toBe(false);
        } finally {
            await languages.dispose();
        }
    });

    it("starts none in an untrusted project", () => {
        const languages = createLanguageService({
            repoRoot: repo,
            trusted: false,
            warn: () => undefined,
            pluginServers: [{ plugin: "a@m", name: "a", servers: { ts: server(".ts") }, env: {} }],
        });
        expect(languages.handles(join(repo, "x.ts"))).toBe(false);
    });
});
