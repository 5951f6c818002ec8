import { describe, expect, it } from "vitest";
import { type HostParts, handleOp } from "../../src/agent/host/op-handlers";
import type { LanguageServerListing } from "../../src/agent/protocol";
import { createCommandRegistryWithAllCommands, runCommandsInInput } from "../../src/commands/index";
import { createLanguageService } from "../../src/tools/lsp/manager";
import type { LanguageService, LspServerStatus } from "../../src/tools/lsp/types";
import { fakeFront } from "./fake-front";

const registry = createCommandRegistryWithAllCommands();

async function lsp(listing: LanguageServerListing): Promise<string> {
    const { front, calls } = fakeFront({ replies: { lsp_servers: () => listing } });
    const ran = await runCommandsInInput("/lsp", registry, front);
    expect(calls()).toEqual(["lsp_servers"]);
    return ran.executed[0]!.result.message;
}

/** The op's reply for a session with `languages`, as the host answers it. */
function listingOf(languages: LanguageService | undefined): LanguageServerListing {
    const host = { deps: { languages } } as unknown as HostParts;
    return handleOp({ type: "lsp_servers" }, host) as LanguageServerListing;
}

const running: LspServerStatus = {
    name: "typescript",
    command: "/repo/node_modules/.bin/typescript-language-server --stdio",
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js"],
    root: "/repo",
    state: "running",
    pid: 4242,
    rssBytes: 150 * 1024 * 1024,
    restarts: 1,
    lastError: "exited with code 1",
    pullDiagnostics: true,
    origin: "built-in",
};

describe("/lsp", () => {
    it("shows each server's state, pid, memory, restarts, root, origin, pull diagnostics, last error, and the total memory", async () => {
        const text = await lsp({
            servers: [
                running,
                {
                    name: "pyright",
                    command: "pyright-langserver --stdio",
                    extensions: [".py", ".pyi"],
                    state: "available",
                    restarts: 0,
                    origin: "built-in",
                },
                {
                    name: "gopls",
                    command: "gopls",
                    extensions: [".go"],
                    state: "missing",
                    restarts: 0,
                    origin: "built-in",
                },
                {
                    name: "clangd",
                    command: "clangd",
                    extensions: [".c"],
                    root: "/repo",
                    state: "disabled",
                    restarts: 1,
                    rssBytes: 50 * 1024 * 1024,
                    lastError: "over its memory cap (2048 MB) twice",
                    origin: ".lsp.json",
                },
            ],
        });
        expect(text.split("\n")).toEqual([
            "typescript: running · pid 4242 · 150 MB · 1 restart(s) · pull diagnostics: yes",
            "  root /repo · from built-in · /repo/node_modules/.bin/typescript-language-server --stdio",
            "  last error: exited with code 1",
            "pyright: found; starts on the first .py .pyi file",
            "  from built-in · pyright-langserver --stdio",
            "gopls: not found (gopls); install: go install golang.org/x/tools/gopls@latest (needs the go command)",
            "  from built-in · gopls",
            "clangd: disabled: over its memory cap (2048 MB) twice · 50 MB · 1 restart(s)",
            "  root /repo · from .lsp.json · clangd",
            "Memory of all servers: 200 MB (1 running)",
        ]);
    });

    it("says, in an untrusted project, that servers start only in a trusted one", async () => {
        const languages = createLanguageService({
            repoRoot: "/repo",
            trusted: false,
            warn: () => undefined,
        });
        const listing = listingOf(languages);
        expect(listing.servers.every((s) => s.state === "disabled")).toBe(true);
        const text = await lsp(listing);
        expect(text).toContain("typescript: disabled: project not trusted");
        expect(text).toContain("servers start only in a trusted project");
    });

    it("lists a trusted project's servers as found or missing without starting any", async () => {
        const languages = createLanguageService({
            repoRoot: process.cwd(),
            trusted: true,
            // North's own devDependencies stand in for an installed typescript-language-server.
            env: { PATH: `${process.cwd()}/node_modules/.bin` },
            warn: () => undefined,
        });
        try {
            const text = await lsp(listingOf(languages));
            expect(text).toContain(
                "typescript: found; starts on the first .ts .tsx .mts .cts … file"
            );
            expect(text).toContain(
                "rust-analyzer: not found (rust-analyzer); install: rustup component add rust-analyzer"
            );
            expect(text).toContain("Memory of all servers: 0 MB (0 running)");
            expect(languages.running()).toEqual([]);
        } finally {
            await languages.dispose();
        }
    });
});
