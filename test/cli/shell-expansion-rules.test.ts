/**
 * Bash expands globs, braces and tildes before it runs a command; the judge
 * reads them as patterns, so deny rules and protected paths hold through the
 * real CLI in print mode, whatever the flags allow.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
    anthropicToolResultTexts,
    type FakeLlmServer,
    startFakeLlmServer,
} from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-expansion-repo-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** The tool results the model got back (the second request), in call order. */
const resultTexts = (): string[] => anthropicToolResultTexts(server.requests[1]!);

const shell = (command: string) => ({ name: "shell_run", input: { command } });

describe("a deny rule under --allow-shell", () => {
    it("holds for a program name spelled as a pattern or otherwise resolved by bash", async () => {
        writeFileSync(join(repo, "victim.txt"), "keep");
        const commands = [
            "/bin/r[m] -f victim.txt",
            "/bin/r? -f victim.txt",
            "/usr/bin/../bin/rm -f victim.txt",
            "$'\\x72'm -f victim.txt",
            "alias r=rm; r -f victim.txt",
        ];
        server.enqueue({ toolCalls: commands.map(shell) }, { text: "ok" });
        const run = await runNorth(
            ["-p", "clean", "--path", repo, "--allow-shell", "--disallowed-command", "rm:*"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "victim.txt"), "utf8")).toBe("keep");
        const results = resultTexts();
        expect(results).toHaveLength(commands.length);
        for (const result of results) {
            expect(result).toContain("denied by the permission rule Bash(rm:*)");
            expect(result).toContain("--disallowed-command");
        }
    });

    it("holds for a denied command hidden in text bash evaluates as arithmetic", async () => {
        writeFileSync(join(repo, "victim.txt"), "keep");
        server.enqueue(
            { toolCalls: [shell("x='a[$(rm -f victim.txt)]'; echo $((x))")] },
            { text: "ok" }
        );
        const run = await runNorth(
            ["-p", "count", "--path", repo, "--allow-shell", "--disallowed-command", "rm:*"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "victim.txt"), "utf8")).toBe("keep");
        expect(resultTexts()[0]).toContain("a deny rule is in force");
    });

    it("holds for an Edit deny on .env against a target spelled as a pattern", async () => {
        writeFileSync(join(repo, ".env"), "SECRET=1\n");
        mkdirSync(join(home, "config"), { recursive: true });
        const config = join(home, "config", "config.json");
        writeFileSync(config, JSON.stringify({ permissions: { deny: ["Edit(./.env)"] } }));
        const commands = ["echo x > .[e]nv", "echo x > .e?v", "echo x > .{e,f}nv"];
        server.enqueue({ toolCalls: commands.map(shell) }, { text: "ok" });
        const run = await runNorth(["-p", "write", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, ".env"), "utf8")).toBe("SECRET=1\n");
        for (const result of resultTexts()) {
            expect(result).toContain("denied by the permission rule Edit(./.env)");
            expect(result).toContain(config);
        }
    });
});

describe("protected paths under --allow-edits and an allowed echo", () => {
    it("refuses in print mode a write whose target pattern could name git's internals or protected configuration", async () => {
        mkdirSync(join(repo, ".git"));
        writeFileSync(join(repo, ".git", "config"), "[core]\n");
        mkdirSync(join(repo, ".vscode"));
        writeFileSync(join(repo, ".vscode", "tasks.json"), "{}\n");
        const commands = [
            "echo '[core]' >> .[g]it/config",
            "echo 'fsmonitor = touch pwned' >> .gi[[:alpha:]]/config",
            "echo '{}' > .[v]scode/tasks.json",
            "cp .vscode/tasks.json .[g]it/hooks-copy",
        ];
        server.enqueue({ toolCalls: commands.map(shell) }, { text: "ok" });
        const run = await runNorth(
            ["-p", "go", "--path", repo, "--allow-edits", "--allowed-command", "echo:*"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, ".git", "config"), "utf8")).toBe("[core]\n");
        expect(readFileSync(join(repo, ".vscode", "tasks.json"), "utf8")).toBe("{}\n");
        expect(existsSync(join(repo, ".git", "hooks-copy"))).toBe(false);
        for (const result of resultTexts()) expect(result).toContain("print mode cannot ask");
    });

    it("still runs a harmless allowed read through a glob", async () => {
        writeFileSync(join(repo, "a.ts"), "export const marker = 42;\n");
        server.enqueue({ toolCalls: [shell("cat [a-z].ts")] }, { text: "ok" });
        const run = await runNorth(["-p", "read", "--path", repo, "--allowed-command", "cat:*"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(resultTexts()[0]).toContain("marker = 42");
    });
});
