/**
 * Commands that write the files their arguments name (`tee`, `cp`, `sed -i`)
 * are judged by the Edit rules through the real CLI in print mode: an Edit
 * deny holds under --allow-shell, and ordinary writes still run.
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
    repo = mkdtempSync(join(tmpdir(), "north-argument-writes-repo-"));
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

describe("an Edit deny on .env under --allow-shell", () => {
    it("holds against commands that write the file their arguments name", async () => {
        writeFileSync(join(repo, ".env"), "SECRET=1\n");
        writeFileSync(join(repo, "x"), "PWNED=1\n");
        mkdirSync(join(repo, "evil"));
        writeFileSync(join(repo, "evil", ".env"), "PWNED=1\n");
        mkdirSync(join(home, "config"), { recursive: true });
        const config = join(home, "config", "config.json");
        writeFileSync(config, JSON.stringify({ permissions: { deny: ["Edit(./.env)"] } }));
        const commands = [
            "cp x .env",
            "echo PWNED=1 | tee .env",
            "sed -i s/SECRET/PWNED/ .env",
            "cp -t . evil/.env",
            "mv x .env",
            "cp -r evil/. .",
            "touch .env",
        ];
        server.enqueue({ toolCalls: commands.map(shell) }, { text: "ok" });
        const run = await runNorth(["-p", "write", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, ".env"), "utf8")).toBe("SECRET=1\n");
        const results = resultTexts();
        expect(results).toHaveLength(commands.length);
        for (const result of results) {
            expect(result).toContain("denied by the permission rule Edit(./.env)");
            expect(result).toContain(config);
        }
        // `mv x .env` did not take x away either.
        expect(existsSync(join(repo, "x"))).toBe(true);
    });

    it("still runs writes to files no rule names", async () => {
        writeFileSync(join(repo, ".env"), "SECRET=1\n");
        writeFileSync(join(repo, "a.txt"), "hello\n");
        mkdirSync(join(home, "config"), { recursive: true });
        writeFileSync(
            join(home, "config", "config.json"),
            JSON.stringify({ permissions: { deny: ["Edit(./.env)"] } })
        );
        server.enqueue(
            { toolCalls: [shell("cp a.txt b.txt && echo logged | tee out.log")] },
            { text: "ok" }
        );
        const run = await runNorth(["-p", "copy", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "b.txt"), "utf8")).toBe("hello\n");
        expect(readFileSync(join(repo, "out.log"), "utf8")).toBe("logged\n");
    });
});

describe("an Edit ask rule under --allow-shell", () => {
    it("forces the review of a command that writes the file, which print mode refuses naming the rule", async () => {
        writeFileSync(join(repo, "notes.md"), "mine\n");
        mkdirSync(join(home, "config"), { recursive: true });
        const config = join(home, "config", "config.json");
        writeFileSync(config, JSON.stringify({ permissions: { ask: ["Edit(./notes.md)"] } }));
        const commands = ["echo theirs > notes.md", "echo theirs | tee notes.md", "cp a notes.md"];
        writeFileSync(join(repo, "a"), "theirs\n");
        server.enqueue({ toolCalls: commands.map(shell) }, { text: "ok" });
        const run = await runNorth(["-p", "write", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "notes.md"), "utf8")).toBe("mine\n");
        const results = resultTexts();
        expect(results).toHaveLength(commands.length);
        for (const result of results) expect(result).toContain(`Edit(./notes.md) (${config})`);
    });
});
