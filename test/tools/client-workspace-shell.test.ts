import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
    type AgentContext,
    type CreateTerminalRequest,
    RequestError,
} from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClientWorkspace, outputAfter } from "../../src/cli/acp/client-workspace";
import type { ClientTerminals } from "../../src/tools/client-workspace";
import type { CommandSandbox } from "../../src/tools/sandbox/command-sandbox";
import { CLIENT_OUTPUT_BYTE_LIMIT } from "../../src/tools/shell-client-run";
import { type ShellService, createShellService } from "../../src/tools/shell-service";

const cleanup: Array<() => void> = [];
afterEach(() => {
    for (const undo of cleanup.splice(0)) undo();
});

function tempRoot(): string {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-client-shell-")));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    return root;
}

function service(root: string, options: Parameters<typeof createShellService>[1]): ShellService {
    const shell = createShellService(root, options);
    cleanup.push(() => shell.dispose());
    return shell;
}

/**
 * An editor's side of ACP's terminals: runs `terminal/create`'s command line
 * exactly (its `env` added to the editor's own environment, which holds a
 * provider key, as ACP specifies), keeps the last `outputByteLimit` bytes.
 */
function fakeEditorTerminals(editorEnv: NodeJS.ProcessEnv) {
    const created: CreateTerminalRequest[] = [];
    const log: string[] = [];
    const children: ChildProcess[] = [];
    let next = 0;
    const context = {
        async createTerminal(params: CreateTerminalRequest) {
            created.push(params);
            const id = `t${++next}`;
            const env = { ...editorEnv };
            for (const { name, value } of params.env ?? []) env[name] = value;
            const child = spawn(params.command, params.args ?? [], {
                cwd: params.cwd ?? undefined,
                env,
                stdio: ["ignore", "pipe", "pipe"],
                detached: true,
            });
            // A terminal's kill ends the command's process group, as a closing pty does.
            const killGroup = (): void => {
                try {
                    process.kill(-child.pid!, "SIGKILL");
                } catch {
                    // already gone
                }
            };
            children.push(child);
            let output = Buffer.alloc(0);
            let truncated = false;
            const limit = params.outputByteLimit ?? Infinity;
            const collect = (chunk: Buffer): void => {
                output = Buffer.concat([output, chunk]);
                if (output.length > limit) {
                    output = output.subarray(output.length - limit);
                    truncated = true;
                }
            };
            child.stdout!.on("data", collect);
            child.stderr!.on("data", collect);
            const exited = new Promise<{ exitCode: number | null; signal: string | null }>(
                (resolve) => child.on("close", (exitCode, signal) => resolve({ exitCode, signal }))
            );
            return {
                id,
                currentOutput: async () => ({ output: output.toString("utf8"), truncated }),
                waitForExit: () => exited,
                kill: async () => {
                    log.push(`kill ${id}`);
                    killGroup();
                    return {};
                },
                release: async () => {
                    log.push(`release ${id}`);
                    killGroup();
                },
            };
        },
    } as unknown as AgentContext;
    cleanup.push(() => children.forEach((child) => child.kill("SIGKILL")));
    return { context, created, log };
}

const PROVIDER_KEY = "ANTHROPIC_API_KEY";

function editorWorkspace(editorEnv: NodeJS.ProcessEnv = { ...process.env }) {
    const editor = fakeEditorTerminals({ ...editorEnv, [PROVIDER_KEY]: "editor-key" });
    const workspace = createClientWorkspace(editor.context, "session-1", { terminal: true });
    if (!workspace?.terminals) throw new Error("terminals expected");
    return { ...editor, terminals: workspace.terminals };
}

describe("commands in the editor's terminals", () => {
    it("runs exactly North's command line: bash wrapper, North's environment only, the working directory", async () => {
        const root = tempRoot();
        mkdirSync(path.join(root, "sub"));
        const editor = editorWorkspace();
        const shell = service(root, {
            terminals: editor.terminals,
            env: { ...process.env, [PROVIDER_KEY]: "north-key", OPENAI_API_KEY: "north-key" },
        });
        const result = await shell.run(
            `echo "key=\${${PROVIDER_KEY}:-none} openai=\${OPENAI_API_KEY:-none} pager=$PAGER"; cd sub; exit 3`
        );
        expect(result.output).toBe("key=none openai=none pager=cat\n");
        expect(result.exitCode).toBe(3);
        expect(result.cwd).toBe("sub");
        const [create] = editor.created;
        expect(create!.command).toBe("/usr/bin/env");
        expect(create!.env).toEqual([]);
        expect(create!.cwd).toBe(root);
        expect(create!.outputByteLimit).toBe(CLIENT_OUTPUT_BYTE_LIMIT);
        const args = create!.args!;
        expect(args.slice(0, 2)).toEqual(["-i", "--"]);
        const program = args.findIndex((arg) => arg === "bash");
        const assignments = args.slice(1, program);
        expect(assignments).toContain("PAGER=cat");
        expect(assignments.some((a) => a.startsWith("NORTH_OWNER="))).toBe(true);
        expect(assignments.some((a) => a.startsWith(`${PROVIDER_KEY}=`))).toBe(false);
        expect(args.slice(program, program + 2)).toEqual(["bash", "-c"]);
        expect(args[args.length - 1]).toContain("exit 3");
        // The next command starts where the last one ended, in a new terminal.
        expect((await shell.run("pwd")).output).toBe(`${path.join(root, "sub")}\n`);
        expect(editor.created[1]!.cwd).toBe(path.join(root, "sub"));
        expect(editor.log).toEqual(["release t1", "release t2"]);
    });

    it("passes live output on and keeps the tail of a long one, with a marker", async () => {
        const root = tempRoot();
        const editor = editorWorkspace();
        const shell = service(root, { terminals: editor.terminals });
        let live = "";
        const result = await shell.run(
            `head -c ${CLIENT_OUTPUT_BYTE_LIMIT + 5000} /dev/zero | tr '\\0' a; echo; echo END`,
            { onOutput: (text) => (live += text) }
        );
        expect(result.exitCode).toBe(0);
        expect(result.truncated).toBe(true);
        expect(result.output).toMatch(/^\[\.\.\. earlier output omitted by the editor's terminal/);
        expect(result.output.endsWith("a\nEND\n")).toBe(true);
        expect(result.output).not.toContain("bytes of output omitted");
        expect(live.endsWith("END\n")).toBe(true);
    });

    it("cancel kills the editor's terminal and releases it; the command stops", async () => {
        const root = tempRoot();
        const editor = editorWorkspace();
        const shell = service(root, { terminals: editor.terminals });
        const controller = new AbortController();
        const running = shell.run("echo started; sleep 30", {
            signal: controller.signal,
            onOutput: (text) => {
                if (text.includes("started")) controller.abort();
            },
        });
        const result = await running;
        expect(result.cancelled).toBe(true);
        expect(result.note).toContain("Cancelled by the user");
        expect(editor.log).toEqual(["kill t1", "release t1"]);
    });

    it("a timeout kills the editor's terminal the same way", async () => {
        const root = tempRoot();
        const editor = editorWorkspace();
        const shell = service(root, { terminals: editor.terminals });
        const result = await shell.run("sleep 30", { timeoutMs: 300 });
        expect(result.timedOut).toBe(true);
        expect(result.note).toMatch(/^Timed out after 0\.3 s/);
        expect(editor.log).toEqual(["kill t1", "release t1"]);
    });

    it("an editor that refuses the terminal is a note, not a crash", async () => {
        const root = tempRoot();
        const refusing: ClientTerminals = {
            run: () => Promise.reject(new Error("terminals are disabled")),
        };
        const shell = service(root, { terminals: refusing });
        const result = await shell.run("echo hi");
        expect(result.exitCode).toBeNull();
        expect(result.note).toContain(
            "the editor's terminal did not run it (terminals are disabled)"
        );
    });

    it("with the sandbox on, North keeps its own shell and never asks the editor", async () => {
        const root = tempRoot();
        const run = vi.fn<ClientTerminals["run"]>();
        // Passes the command through unchanged: what matters is who starts it.
        const sandbox = {
            policy: { network: true, writable: [] },
            description: "test sandbox",
            availability: () => Promise.resolve({ ok: true }),
            createSessionFolders: () => undefined,
            controlPath: (dir: string, name: string) => [
                path.join(dir, name),
                path.join(dir, name),
            ],
            prepare: (argv: readonly string[], env: NodeJS.ProcessEnv) => ({
                file: argv[0],
                args: argv.slice(1),
                env,
                finish: () => undefined,
            }),
            blockedNote: () => undefined,
        } as unknown as CommandSandbox;
        const shell = service(root, { terminals: { run }, sandbox });
        expect((await shell.run("echo own")).output).toBe("own\n");
        expect(run).not.toHaveBeenCalled();
    });
});

describe("outputAfter", () => {
    it("is the new text, also after the editor dropped the start", () => {
        expect(outputAfter("abc", "abcdef")).toBe("def");
        expect(outputAfter("", "xyz")).toBe("xyz");
        const seen = "x".repeat(50) + "0123456789".repeat(10);
        expect(outputAfter(seen, seen.slice(30) + "NEW")).toBe("NEW");
        expect(outputAfter("0123", "WXYZ")).toBe("WXYZ");
    });
});

describe("createClientWorkspace", () => {
    const context = {} as AgentContext;
    it("offers files only with both reading and writing, terminals with terminal: true", () => {
        expect(createClientWorkspace(context, "s", undefined)).toBeUndefined();
        expect(createClientWorkspace(context, "s", { fs: { readTextFile: true } })).toBeUndefined();
        const both = createClientWorkspace(context, "s", {
            fs: { readTextFile: true, writeTextFile: true },
        });
        expect(both?.files).toBeDefined();
        expect(both?.terminals).toBeUndefined();
        const terminal = createClientWorkspace(context, "s", { terminal: true });
        expect(terminal?.files).toBeUndefined();
        expect(terminal?.terminals).toBeDefined();
    });
});

describe("the editor's files over ACP", () => {
    it("reads and writes with the session's id and the absolute path; the editor's error keeps its details", async () => {
        const sent: Array<{ method: string; params: unknown }> = [];
        const context = {
            request: (method: string, params: { path: string }) => {
                sent.push({ method, params });
                if (params.path.endsWith("locked.ts")) {
                    return Promise.reject(
                        new RequestError(-32603, "Internal error", { details: "buffer is locked" })
                    );
                }
                return Promise.resolve(method === "fs/read_text_file" ? { content: "text" } : {});
            },
        } as unknown as AgentContext;
        const files = createClientWorkspace(context, "s1", {
            fs: { readTextFile: true, writeTextFile: true },
        })!.files!;
        expect(await files.read("/repo/a.ts")).toBe("text");
        await files.write("/repo/a.ts", "new");
        expect(sent).toEqual([
            { method: "fs/read_text_file", params: { sessionId: "s1", path: "/repo/a.ts" } },
            {
                method: "fs/write_text_file",
                params: { sessionId: "s1", path: "/repo/a.ts", content: "new" },
            },
        ]);
        await expect(files.read("/repo/locked.ts")).rejects.toThrow(
            "Internal error: buffer is locked"
        );
    });
});
