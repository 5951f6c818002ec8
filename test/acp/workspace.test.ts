/**
 * The editor's files and terminals, end to end: a real ACP client (the SDK's
 * client side) drives the built `north acp`; its test editor holds unsaved
 * buffers and runs terminal command lines exactly as given, with its own
 * environment (which holds a provider key) underneath.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AcpClient, acpEnv, startAcpClient, tempRepo } from "../kit/acp-client";
import {
    type FakeLlmServer,
    anthropicToolResultTexts,
    startFakeLlmServer,
} from "../kit/fake-llm-server";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
let acp: AcpClient | undefined;

const SAVED = "export const attempts = 3;\n";
const UNSAVED = "export const attempts = 3;\nexport const typedButNotSaved = true;\n";

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = realpathSync(tempRepo({ "src/retry.ts": SAVED }));
    ({ home, env } = acpEnv(server.anthropicBaseUrl));
    // The user's standing rules answer the reviews: approvals are not what these tests are about.
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(
        join(home, "config", "config.json"),
        JSON.stringify({
            permissions: {
                allow: ["Edit(src/**)", "Bash(echo:*)", "Bash(pwd)", "Bash(sleep:*)", "Bash(wait)"],
            },
        })
    );
    server.requests.length = 0;
});
afterEach(async () => {
    await acp?.close();
    acp = undefined;
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

async function session(options: { fs?: boolean; terminal?: boolean }) {
    acp = await startAcpClient({ env, cwd: repo, ...options });
    await acp.initialize();
    const { sessionId } = await acp.newSession(repo);
    return { acp, sessionId };
}

const retryPath = (): string => join(repo, "src/retry.ts");

describe("files", () => {
    it("with fs, the model reads the editor's unsaved buffer", async () => {
        server.enqueue(
            {
                toolCalls: [
                    { id: "toolu_read", name: "read_file", input: { path: "src/retry.ts" } },
                ],
            },
            { text: "Read it." }
        );
        const { acp, sessionId } = await session({ fs: true });
        acp.editor.buffers.set(retryPath(), UNSAVED);
        expect((await acp.prompt(sessionId, "read retry.ts")).stopReason).toBe("end_turn");
        expect(anthropicToolResultTexts(server.requests[1]!)[0]).toContain("typedButNotSaved");
        expect(acp.editor.reads.map((r) => r.path)).toEqual([retryPath()]);
        expect(acp.editor.reads[0]!.sessionId).toBe(sessionId);
    });

    it("with fs, an edit is prepared from the buffer and written through the editor", async () => {
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_edit",
                        name: "edit_replace_exact",
                        input: {
                            path: "src/retry.ts",
                            old_text: "typedButNotSaved = true",
                            new_text: "typedButNotSaved = false",
                        },
                    },
                ],
            },
            { text: "Edited." }
        );
        const { acp, sessionId } = await session({ fs: true });
        acp.editor.buffers.set(retryPath(), UNSAVED);
        expect((await acp.prompt(sessionId, "flip the flag")).stopReason).toBe("end_turn");
        const edited = UNSAVED.replace("= true", "= false");
        expect(acp.editor.writes).toEqual([
            expect.objectContaining({ sessionId, path: retryPath(), content: edited }),
        ]);
        expect(acp.editor.buffers.get(retryPath())).toBe(edited);
        expect(readFileSync(retryPath(), "utf8")).toBe(edited);
    });

    it("without fs, the disk is read and written and the editor is never asked", async () => {
        server.enqueue(
            {
                toolCalls: [
                    {
                        id: "toolu_edit",
                        name: "edit_replace_exact",
                        input: { path: "src/retry.ts", old_text: "= 3", new_text: "= 4" },
                    },
                ],
            },
            { text: "Edited." }
        );
        const { acp, sessionId } = await session({});
        acp.editor.buffers.set(retryPath(), UNSAVED);
        expect((await acp.prompt(sessionId, "four")).stopReason).toBe("end_turn");
        expect(readFileSync(retryPath(), "utf8")).toBe(SAVED.replace("= 3", "= 4"));
        expect(acp.editor.reads).toEqual([]);
        expect(acp.editor.writes).toEqual([]);
    });
});

describe("terminals", () => {
    const command = 'echo "key=${ANTHROPIC_API_KEY:-none} pager=$PAGER"; pwd';

    it("with terminal, the command runs in the editor's terminal with North's environment only", async () => {
        server.enqueue(
            { toolCalls: [{ id: "toolu_shell", name: "shell_run", input: { command } }] },
            { text: "Ran it." }
        );
        const { acp, sessionId } = await session({ terminal: true });
        expect((await acp.prompt(sessionId, "run it")).stopReason).toBe("end_turn");
        // The editor's own environment has the provider key; the command must not see it.
        expect(env.ANTHROPIC_API_KEY).toBeTruthy();
        const result = anthropicToolResultTexts(server.requests[1]!)[0]!;
        expect(result).toContain("key=none pager=cat");
        expect(result).toContain(repo);
        const [terminal] = acp.editor.terminals;
        expect(terminal!.request).toMatchObject({ sessionId, command: "/usr/bin/env", cwd: repo });
        expect(terminal!.request.args![0]).toBe("-i");
        expect(terminal!.request.args).toContain(command);
        expect(terminal!.request.args!.some((a) => a.startsWith("ANTHROPIC_API_KEY="))).toBe(false);
        expect(terminal!.released).toBe(true);
    });

    it("without terminal, North runs the command itself", async () => {
        server.enqueue(
            { toolCalls: [{ id: "toolu_shell", name: "shell_run", input: { command } }] },
            { text: "Ran it." }
        );
        const { acp, sessionId } = await session({});
        expect((await acp.prompt(sessionId, "run it")).stopReason).toBe("end_turn");
        expect(anthropicToolResultTexts(server.requests[1]!)[0]).toContain("key=none pager=cat");
        expect(acp.editor.terminals).toEqual([]);
    });

    it("cancel mid-command kills and releases the editor's terminal; the turn answers cancelled", async () => {
        server.enqueue({
            toolCalls: [
                {
                    id: "toolu_shell",
                    name: "shell_run",
                    input: { command: "echo started; sleep 30" },
                },
            ],
        });
        const { acp, sessionId } = await session({ terminal: true });
        const turn = acp.prompt(sessionId, "run forever");
        await acp.waitFor("the command running", () =>
            acp.editor.terminals[0]?.output.includes("started") ? true : undefined
        );
        await acp.cancel(sessionId);
        expect((await turn).stopReason).toBe("cancelled");
        const [terminal] = acp.editor.terminals;
        expect(terminal!.killed).toBe(true);
        expect(terminal!.released).toBe(true);
    });

    it("an editor that goes away mid-command leaves nothing of it running", async () => {
        server.enqueue({
            toolCalls: [
                {
                    id: "toolu_shell",
                    name: "shell_run",
                    input: { command: "sleep 30 & echo pid=$!; wait" },
                },
            ],
        });
        const { acp, sessionId } = await session({ terminal: true });
        void acp.prompt(sessionId, "run in the background").catch(() => undefined);
        const pid = await acp.waitFor("the background pid", () => {
            const found = /pid=(\d+)/.exec(acp.editor.terminals[0]?.output ?? "");
            return found ? Number(found[1]) : undefined;
        });
        await acp.close();
        // Not the editor's child (that is bash): only North's owner mark finds it.
        await expect.poll(() => isRunning(pid), { timeout: 10_000 }).toBe(false);
    });
});

function isRunning(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch {
        return false;
    }
    try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return !/^\S+ \(.*\) [ZX]/.test(stat);
    } catch {
        return false;
    }
}
