/**
 * Settings files through the built CLI: a mistyped key is reported in one
 * line naming the file and the key, and North still answers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
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
    repo = mkdtempSync(join(tmpdir(), "north-settings-cli-"));
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

function put(path: string, value: unknown): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value));
}

describe("settings files in print mode", () => {
    it("a typo in .north/settings.json is one warning naming the file and key; North still answers", async () => {
        put(join(repo, ".north", "settings.json"), { allowedComands: ["touch ran"] });
        server.enqueue(
            { toolCalls: [{ name: "shell_run", input: { command: "touch ran" } }] },
            { text: "It is a demo." }
        );
        const run = await runNorth(["-p", "what is this?", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("It is a demo.\n");
        expect(run.stderr).toBe(
            `north: warning: ${join(repo, ".north", "settings.json")}: unknown setting "allowedComands" (did you mean "allowedCommands"?); ignored\n`
        );
        // The mistyped key granted nothing: the command was denied.
        expect(JSON.stringify(server.requests[1]!.body)).toContain("--allowed-command");
    });

    it("a typo in the user's config.json is reported too, and the model chosen there is used", async () => {
        put(join(home, "config", "config.json"), {
            selectedModel: "haiku-4-5",
            mcpServer: {},
        });
        server.enqueue({ text: "hi" });
        const run = await runNorth(["-p", "hello", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(run.stderr).toBe(
            `north: warning: ${join(home, "config", "config.json")}: unknown setting "mcpServer" (did you mean "mcpServers"?); ignored\n`
        );
        expect((server.requests[0]!.body as { model: string }).model).toContain("haiku-4-5");
    });

    it("a broken .north/settings.json is a warning naming it, not a failure", async () => {
        mkdirSync(join(repo, ".north"), { recursive: true });
        writeFileSync(join(repo, ".north", "settings.json"), '{"hooks": ');
        server.enqueue({ text: "fine" });
        const run = await runNorth(["-p", "hello", "--path", repo, "--trust"], { env });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("fine\n");
        expect(run.stderr).toContain(
            `north: warning: ${join(repo, ".north", "settings.json")} is not valid JSON`
        );
        expect(run.stderr.trim().split("\n")).toHaveLength(1);
    });
});
