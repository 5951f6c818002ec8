/**
 * Which servers North knows and how it finds them: built-ins, the user's
 * `lsp.servers`, Claude Code's `.lsp.json`, binaries on PATH or in the
 * project's node_modules/.bin, and the TypeScript typescript-language-server is given.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLanguageService } from "../../../src/tools/lsp/manager";
import {
    BUILT_IN_SERVERS,
    findBinary,
    mergeServerSettings,
    parseClaudeLspConfig,
    typescriptInitializationOptions,
} from "../../../src/tools/lsp/server-definitions";

const dirs: string[] = [];
afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "north-lsp-defs-"));
    dirs.push(dir);
    return dir;
}

function executable(path: string): void {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, 0o755);
}

describe("built-in servers", () => {
    it("cover the languages the issue names, each with its languageIds", () => {
        const byName = new Map(BUILT_IN_SERVERS.map((s) => [s.name, s]));
        expect([...byName.keys()]).toEqual([
            "typescript",
            "pyright",
            "gopls",
            "clangd",
            "bash",
            "rust-analyzer",
        ]);
        expect(byName.get("typescript")?.languages[".tsx"]).toBe("typescriptreact");
        expect(byName.get("pyright")?.languages[".pyi"]).toBe("python");
        expect(byName.get("clangd")?.languages[".hpp"]).toBe("cpp");
        expect(byName.get("gopls")?.rootMarkers).toContain("go.mod");
    });
});

describe("finding a binary", () => {
    it("looks in the project's node_modules/.bin first, then PATH; null when nowhere", () => {
        const project = tempDir();
        const elsewhere = tempDir();
        executable(join(project, "node_modules", ".bin", "pyright-langserver"));
        executable(join(elsewhere, "pyright-langserver"));
        executable(join(elsewhere, "gopls"));
        expect(findBinary("pyright-langserver", project, elsewhere)).toBe(
            join(project, "node_modules", ".bin", "pyright-langserver")
        );
        expect(findBinary("gopls", project, elsewhere)).toBe(join(elsewhere, "gopls"));
        expect(findBinary("clangd", project, elsewhere)).toBeNull();
    });

    it("a found binary makes the service offer its server; a missing one is listed as missing", () => {
        const project = tempDir();
        executable(join(project, "node_modules", ".bin", "gopls"));
        const service = createLanguageService({
            repoRoot: project,
            trusted: true,
            env: { PATH: "" },
            warn: () => undefined,
        });
        expect(service.hasServers()).toBe(true);
        expect(service.handles(join(project, "main.go"))).toBe(true);
        expect(service.handles(join(project, "main.py"))).toBe(false);
        const states = Object.fromEntries(service.status().map((s) => [s.name, s.state]));
        expect(states).toMatchObject({ gopls: "available", pyright: "missing", clangd: "missing" });
    });
});

describe("settings and .lsp.json", () => {
    it("lay the user's entries over the built-ins: a known name changes what it sets", () => {
        const warnings: string[] = [];
        const merged = mergeServerSettings(
            BUILT_IN_SERVERS,
            {
                gopls: { args: ["serve"] },
                pyright: { disabled: true },
                zls: { command: "zls", extensions: [".zig"] },
                broken: { command: "x" },
            },
            "settings",
            (message) => warnings.push(message)
        );
        const byName = new Map(merged.map((s) => [s.name, s]));
        expect(byName.get("gopls")).toMatchObject({
            command: "gopls",
            args: ["serve"],
            origin: "built-in, settings",
        });
        expect(byName.get("pyright")?.disabled).toBe(true);
        expect(byName.get("zls")).toMatchObject({
            languages: { ".zig": "zig" },
            origin: "settings",
        });
        expect(byName.has("broken")).toBe(false);
        expect(warnings).toEqual([
            'settings: language server "broken" needs a command and extensions; ignored',
        ]);
    });

    it("reads Claude Code's shape, bare or under lspServers, stdio only", () => {
        const warnings: string[] = [];
        const text = JSON.stringify({
            lspServers: {
                go: {
                    command: "gopls",
                    args: ["serve"],
                    extensionToLanguage: { ".go": "go" },
                    env: { GOFLAGS: "-mod=mod" },
                    initializationOptions: { usePlaceholders: true },
                    settings: { gopls: { staticcheck: true } },
                    startupTimeout: 5000,
                    restartOnCrash: false,
                },
                remote: { command: "x", extensionToLanguage: { ".x": "x" }, transport: "socket" },
                incomplete: { command: "y" },
            },
        });
        const [go, ...rest] = parseClaudeLspConfig(text, ".lsp.json", (m) => warnings.push(m));
        expect(rest).toEqual([]);
        expect(go).toMatchObject({
            name: "go",
            command: "gopls",
            args: ["serve"],
            languages: { ".go": "go" },
            env: { GOFLAGS: "-mod=mod" },
            initializationOptions: { usePlaceholders: true },
            settings: { gopls: { staticcheck: true } },
            startupTimeoutMs: 5000,
            maxRestarts: 0,
            origin: ".lsp.json",
        });
        expect(warnings).toHaveLength(2);
        expect(warnings[0]).toMatch(/"remote" uses transport "socket"/);
        expect(warnings[1]).toMatch(/"incomplete" needs "command" and "extensionToLanguage"/);

        const bare = parseClaudeLspConfig(
            JSON.stringify({
                py: { command: "pyright-langserver", extensionToLanguage: { ".py": "python" } },
            }),
            ".lsp.json",
            () => undefined
        );
        expect(bare.map((s) => s.name)).toEqual(["py"]);
    });

    it("a .lsp.json server is listed beside the built-ins, found relative to the project", () => {
        const project = tempDir();
        executable(join(project, "bin", "my-tsls"));
        executable(join(project, "node_modules", ".bin", "typescript-language-server"));
        const service = createLanguageService({
            repoRoot: project,
            trusted: true,
            env: { PATH: "" },
            warn: () => undefined,
            claudeLspJson: JSON.stringify({
                vtsls: { command: "./bin/my-tsls", extensionToLanguage: { ".ts": "typescript" } },
            }),
        });
        const status = service.status();
        expect(status.find((s) => s.name === "vtsls")).toMatchObject({
            origin: ".lsp.json",
            state: "available",
        });
        expect(status.find((s) => s.name === "typescript")?.state).toBe("available");
        expect(service.handles(join(project, "a.ts"))).toBe(true);
    });

    it("lsp.enabled false starts nothing and says so", () => {
        const service = createLanguageService({
            repoRoot: tempDir(),
            trusted: true,
            settings: { enabled: false },
            warn: () => undefined,
        });
        expect(service.hasServers()).toBe(false);
        expect(service.status()[0]?.lastError).toMatch(/turned off in settings/);
    });
});

describe("typescript-language-server's TypeScript", () => {
    it("is the project's own when it has one, else the one beside the server", () => {
        const project = tempDir();
        const global = tempDir();
        const binary = join(global, "node_modules", "typescript-language-server", "lib", "cli.mjs");
        executable(binary);
        executable(join(global, "node_modules", "typescript", "lib", "tsserver.js"));
        expect(typescriptInitializationOptions(project, binary, undefined)).toEqual({
            tsserver: { fallbackPath: join(global, "node_modules", "typescript", "lib") },
        });
        executable(join(project, "node_modules", "typescript", "lib", "tsserver.js"));
        expect(
            typescriptInitializationOptions(project, binary, {
                preferences: { quoteStyle: "single" },
            })
        ).toEqual({
            preferences: { quoteStyle: "single" },
            tsserver: { path: join(project, "node_modules", "typescript", "lib") },
        });
    });
});
