/**
 * `north doctor` lists each language server as a session there would see it,
 * starting none: found (where), not found (how to install it), a configured
 * one missing (a warning), and in an untrusted project that found servers
 * start only once it is trusted.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isolatedHome, runNorth } from "../kit/run-north";

const SERVER_BIN = fileURLToPath(
    new URL("../../node_modules/.bin/typescript-language-server", import.meta.url)
);

let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), "north-doctor-lsp-")));
    mkdirSync(join(repo, ".git"));
    // The project's own typescript-language-server, as `npm install` would put it there.
    mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
    symlinkSync(SERVER_BIN, join(repo, "node_modules", ".bin", "typescript-language-server"));
    const isolated = isolatedHome();
    home = isolated.home;
    // A PATH with no language server on it: what is found comes from the project (or is missing).
    const bin = join(home, "bin");
    mkdirSync(bin);
    env = { ...isolated.env, PATH: bin };
});
afterEach(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

function put(path: string, value: unknown): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value));
}

/** The `lsp` line about `server`. */
const line = (output: string, server: string) =>
    output.split("\n").find((l) => new RegExp(`^. lsp +${server}: `).test(l)) ?? "";
const trustLine = (output: string) => output.split("\n").find((l) => l.startsWith("! trust")) ?? "";

describe("north doctor: language servers", () => {
    it("lists found, missing (with how to install) and configured-but-missing servers", async () => {
        put(join(env.NORTH_CONFIG_DIR!, "config.json"), {
            lsp: { servers: { zls: { command: "no-such-zls", extensions: [".zig"] } } },
        });
        const run = await runNorth(["doctor", "--path", repo], { env });
        expect(run.stderr).toBe("");
        const found = line(run.stdout, "typescript");
        expect(found).toMatch(/^✓ lsp +typescript: found: /);
        expect(
            found.endsWith(
                `found: ${join(repo, "node_modules/.bin/typescript-language-server")} --stdio (built-in)`
            )
        ).toBe(true);
        expect(line(run.stdout, "rust-analyzer")).toMatch(
            /^- lsp +rust-analyzer: not found \(rust-analyzer\); install: rustup component add rust-analyzer$/
        );
        expect(line(run.stdout, "zls")).toMatch(/^! lsp +zls: not found \(no-such-zls\)$/);
    });

    it("in an untrusted project names found servers as not started until it is trusted", async () => {
        // A project MCP server makes the project one that must be trusted first.
        put(join(repo, ".mcp.json"), { mcpServers: { local: { command: "true" } } });
        const run = await runNorth(["doctor", "--path", repo], { env });
        expect(trustLine(run.stdout)).toMatch(/ is not trusted/);
        expect(line(run.stdout, "typescript")).toMatch(
            /^- lsp +typescript: found: .*typescript-language-server --stdio \(built-in\); not started: servers start only in a trusted project$/
        );
    });
});
