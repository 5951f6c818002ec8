import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

// shell_run with tty: true end to end: the built North, a scripted model, a real pty
// (node-pty loaded from node_modules by the bundle) and the screen the model reads.
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
    repo = mkdtempSync(join(tmpdir(), "north-tty-repo-"));
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

/** The tool results North sent back to the model, by tool call id, as the model reads them. */
function toolResults(): Map<string, string> {
    const body = server.requests.at(-1)!.body as { messages: Array<{ content: unknown }> };
    const results = new Map<string, string>();
    for (const message of body.messages) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as Array<Record<string, unknown>>) {
            if (block.type !== "tool_result") continue;
            const content = block.content;
            results.set(
                String(block.tool_use_id),
                typeof content === "string" ? content : JSON.stringify(content)
            );
        }
    }
    return results;
}

describe("shell_run with tty: true", () => {
    it("runs vi in a pty: the model reads its screen, types with keys and saves", async () => {
        writeFileSync(join(repo, "notes.txt"), "first line\n");
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "start",
                        name: "shell_run",
                        input: { command: "vi -u NONE -N notes.txt", tty: true },
                    },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "ready",
                        name: "process_read",
                        input: { id: "p1", wait: { pattern: "^~$" }, timeoutMs: 15_000 },
                    },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "type",
                        name: "process_send",
                        input: { id: "p1", text: "Goadded by the model", keys: ["esc"] },
                    },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "save",
                        name: "process_send",
                        input: { id: "p1", text: ":wq", keys: ["enter"] },
                    },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "end",
                        name: "process_read",
                        input: { id: "p1", wait: "exit", timeoutMs: 15_000 },
                    },
                ],
            },
            { text: "saved" }
        );
        const run = await runNorth(
            ["-p", "edit the notes in vi", "--path", repo, "--allow-shell"],
            {
                env,
            }
        );
        expect(run.stderr).toBe("");
        expect(run.stdout).toBe("saved\n");
        expect(run.code).toBe(0);
        const results = toolResults();
        // No fallback note: the pty loaded.
        expect(results.get("start")).not.toContain("No terminal");
        expect(results.get("start")).toContain("p1");
        // The wait was for a screen row (vi's tilde under the file's lines), and the text is
        // the screen as a terminal shows it: the file, then the tilde rows, no escapes.
        const ready = results.get("ready")!;
        expect(ready).toContain('"outcome":"matched"');
        expect(ready).toMatch(/"text":"first line\\n~/);
        expect(ready).not.toMatch(/\\u001b|\\x1b/);
        expect(results.get("type")).toContain('"screen":true');
        expect(results.get("end")).toMatch(/"exitCode":0/);
        expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe(
            "first line\nadded by the model\n"
        );
    });

    it("refuses to type the model's text into a password prompt and points to askUser", async () => {
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "start",
                        name: "shell_run",
                        input: {
                            command: 'read -r -s -p "Password: " s; echo "got ${#s}"',
                            tty: true,
                        },
                    },
                ],
            },
            {
                toolCalls: [
                    {
                        id: "prompt",
                        name: "process_read",
                        input: { id: "p1", wait: { pattern: "Password:" }, timeoutMs: 15_000 },
                    },
                ],
            },
            {
                toolCalls: [
                    { id: "typed", name: "process_send", input: { id: "p1", text: "guess\n" } },
                ],
            },
            { toolCalls: [{ id: "stop", name: "process_stop", input: { id: "p1" } }] },
            { text: "stopped" }
        );
        const run = await runNorth(["-p", "log in", "--path", repo, "--allow-shell"], { env });
        expect(run.code).toBe(0);
        const typed = toolResults().get("typed")!;
        expect(typed).toContain('p1 waits for a password (\\"Password:\\"); nothing was sent.');
        expect(typed).toContain("askUser: true");
        // Nothing reached the program: it still waited for the password when stopped.
        expect(toolResults().get("stop")).toContain('"signal":"SIGTERM"');
    });
});
