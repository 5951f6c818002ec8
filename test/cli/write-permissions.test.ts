import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    repo = mkdtempSync(join(tmpdir(), "north-perm-repo-"));
    writeFileSync(join(repo, "app.ts"), "export const retries = 3;\n");
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

const edit = {
    name: "edit_replace_exact",
    input: { path: "app.ts", old_text: "retries = 3", new_text: "retries = 5" },
};
const lastRequest = () => JSON.stringify(server.requests.at(-1)!.body);

describe("edits in print mode", () => {
    it("are denied without --allow-edits: nothing written, the model told how to allow them", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "I could not edit." });
        const run = await runNorth(["-p", "bump retries", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 3;\n");
        expect(lastRequest()).toContain("--allow-edits");
        expect(lastRequest()).toContain("denied");
    });

    it("are applied with --allow-edits and the model gets applied: true", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "Done." });
        const run = await runNorth(
            ["-p", "bump retries", "--path", repo, "--allow-edits", "--output-format", "json"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
        expect(lastRequest()).toContain('\\"applied\\":true');
        expect(JSON.parse(run.stdout).tool_calls).toEqual([{ ...edit, ok: true }]);
    });

    it("never write into .git, even with both flags, at any depth", async () => {
        mkdirSync(join(repo, "vendor", "lib", ".git"), { recursive: true });
        writeFileSync(join(repo, "vendor", "lib", ".git", "config"), "[core]\n");
        server.enqueue(
            {
                toolCalls: [
                    {
                        name: "edit_replace_exact",
                        input: {
                            path: "vendor/lib/.git/config",
                            old_text: "[core]",
                            new_text: "[core]\n\tfsmonitor = touch /tmp/pwned",
                        },
                    },
                ],
            },
            { text: "no" }
        );
        const run = await runNorth(
            ["-p", "x", "--path", repo, "--allow-edits", "--allow-config-edits"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "vendor", "lib", ".git", "config"), "utf8")).toBe(
            "[core]\n"
        );
        expect(lastRequest()).toContain("git's internals");
    });

    it("write .north/ only with --allow-edits --allow-config-edits, and say which flag is missing", async () => {
        const grant = {
            toolCalls: [
                {
                    name: "edit_create_file",
                    input: { path: ".north/autoaccept.json", content: '{"shellAutoApprove":true}' },
                },
            ],
        };
        server.enqueue(grant, { text: "no" });
        const refused = await runNorth(["-p", "x", "--path", repo, "--allow-edits"], { env });
        expect(refused.code).toBe(0);
        expect(existsSync(join(repo, ".north", "autoaccept.json"))).toBe(false);
        expect(lastRequest()).toContain("--allow-config-edits");

        server.enqueue(grant, { text: "ok" });
        const allowed = await runNorth(
            ["-p", "x", "--path", repo, "--allow-edits", "--allow-config-edits"],
            { env }
        );
        expect(allowed.code).toBe(0);
        expect(readFileSync(join(repo, ".north", "autoaccept.json"), "utf8")).toBe(
            '{"shellAutoApprove":true}'
        );
    });
});

describe("NORTH_FILE blocks in print mode", () => {
    const block =
        '<NORTH_FILE path="src/new.ts">\nexport const a = 1;\nexport const b = 2;\n</NORTH_FILE>';

    it("create a new file once the block closes, when edits are allowed", async () => {
        server.enqueue(
            { text: ["Creating it.\n", block.slice(0, 17), block.slice(17, 40), block.slice(40)] },
            { text: "Created." }
        );
        const run = await runNorth(["-p", "create src/new.ts", "--path", repo, "--allow-edits"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "src", "new.ts"), "utf8")).toBe(
            "export const a = 1;\nexport const b = 2;\n"
        );
        expect(lastRequest()).toContain("written (2 lines) and accepted");
        expect(run.stdout).toBe("Created.\n");
    });

    it("remove the new file when edits are not allowed", async () => {
        server.enqueue({ text: block }, { text: "Could not." });
        const run = await runNorth(["-p", "create src/new.ts", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "src", "new.ts"))).toBe(false);
        expect(lastRequest()).toContain("rejected");
    });

    it("refuse a path outside the repository", async () => {
        server.enqueue(
            { text: '<NORTH_FILE path="../escape.ts">\nx\n</NORTH_FILE>' },
            { text: "ok" }
        );
        const run = await runNorth(["-p", "x", "--path", repo, "--allow-edits"], { env });
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "..", "escape.ts"))).toBe(false);
        expect(lastRequest()).toContain("failed");
    });

    it("apply the partial content of a block never closed after 3 continuations, when edits are allowed", async () => {
        const open = (mode: string) => ({ text: `<NORTH_FILE path="big.ts"${mode}>\nline\n` });
        server.enqueue(
            open(""),
            open(' mode="append"'),
            open(' mode="append"'),
            open(' mode="append"'),
            { text: "gave up" }
        );
        const run = await runNorth(["-p", "write big.ts", "--path", repo, "--allow-edits"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(readFileSync(join(repo, "big.ts"), "utf8")).toBe("line\nline\nline\nline\n");
        expect(JSON.stringify(server.requests[1]!.body)).toContain('mode=\\"append\\"');
        expect(lastRequest()).toContain("cut off again after 3 continuations");
    });

    it("are plain text in ask mode: nothing is written", async () => {
        server.enqueue({ text: block });
        const run = await runNorth(
            ["-p", "show me", "--path", repo, "--mode", "ask", "--allow-edits"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(existsSync(join(repo, "src", "new.ts"))).toBe(false);
        expect(run.stdout).toContain("<NORTH_FILE");
    });
});

describe("shell commands in print mode", () => {
    const shell = (command: string) => ({ toolCalls: [{ name: "shell_run", input: { command } }] });

    it("are denied without flags, with the flag to use", async () => {
        server.enqueue(shell("echo ok"), { text: "denied" });
        const run = await runNorth(["-p", "run", "--path", repo], { env });
        expect(run.code).toBe(0);
        expect(lastRequest()).toContain("--allowed-command");
        expect(lastRequest()).toContain("--allow-shell");
    });

    it("run exactly the allowed strings with --allowed-command", async () => {
        server.enqueue(shell("echo ok"), shell("echo nope"), { text: "done" });
        const run = await runNorth(["-p", "run", "--path", repo, "--allowed-command", "echo ok"], {
            env,
        });
        expect(run.code).toBe(0);
        const second = JSON.stringify(server.requests[1]!.body);
        expect(second).toContain("ok\\\\n");
        expect(lastRequest()).toContain("denied");
    });

    it("run everything with --allow-shell, in the project, keeping cd across calls", async () => {
        server.enqueue(shell("mkdir sub && cd sub && pwd"), shell("pwd"), { text: "done" });
        const run = await runNorth(
            ["-p", "run", "--path", repo, "--allow-shell", "--output-format", "json"],
            { env }
        );
        expect(run.code).toBe(0);
        expect(lastRequest()).toContain("/sub");
        expect(JSON.parse(run.stdout).tool_calls.map((c: { ok: boolean }) => c.ok)).toEqual([
            true,
            true,
        ]);
    });
});
