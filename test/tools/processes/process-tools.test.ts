/**
 * The model's side (issue 35, parts 1-3): shell_run's background start and
 * Ctrl+B, process_read, process_send (a password prompt takes no plain
 * text; the user's answer never reaches the result) and process_stop, each
 * through its tool definition as the registry runs it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createProcessReadTool } from "../../../src/tools/process-read";
import { createProcessSendTool } from "../../../src/tools/process-send";
import { createProcessStopTool } from "../../../src/tools/process-stop";
import { createShellRunTool } from "../../../src/tools/shell-run";
import type { ToolContext } from "../../../src/tools/types";
import { disposeKits, makeKit, untilGone } from "./kit";

afterEach(disposeKits);

function context(root: string, extra: Partial<ToolContext> = {}): ToolContext {
    return { repoRoot: root, signal: new AbortController().signal, toolCallId: "call-7", ...extra };
}

describe("the process tools", () => {
    it("start, read, wait for and stop a background command", async () => {
        const { shell, repo } = await makeKit();
        const ctx = context(repo.root);
        const run = createShellRunTool(shell);
        const started = await run.execute(
            {
                command:
                    "echo ready; while [ ! -f go ]; do sleep 0.02; done; echo working; exec sleep 100",
                background: true,
            },
            ctx
        );
        expect(started).toMatchObject({
            ok: true,
            data: {
                background: { id: "p1", state: "running", tty: false },
                output: "ready",
                exitCode: null,
            },
        });
        expect(run.display!.title({ command: "npm run dev", background: true })).toBe(
            "Starting npm run dev"
        );
        expect(run.display!.resultDetail!(started.ok ? started.data : null)).toEqual([
            "p1 running in the background",
            "ready",
        ]);
        expect(shell.processes.get("p1")?.origin).toBe("call-7");
        await repo.write("go", "");
        const read = createProcessReadTool(shell);
        const waited = await read.execute(
            { id: "p1", wait: { pattern: "work" }, timeoutMs: 20_000 },
            ctx
        );
        expect(waited).toMatchObject({
            ok: true,
            data: {
                id: "p1",
                state: "running",
                outcome: "matched",
                matchedLine: "working",
                text: "working",
            },
        });
        expect(await read.execute({ id: "p1", mode: "grep" }, ctx)).toMatchObject({
            ok: false,
            error: { code: "invalid_args" },
        });
        const stop = createProcessStopTool(shell);
        const stopped = await stop.execute({ id: "p1" }, ctx);
        expect(stopped).toMatchObject({ ok: true, data: { id: "p1", state: "exited" } });
        await untilGone(shell.processes.get("p1")!.pid!);
        expect(await read.execute({ id: "p7" }, ctx)).toMatchObject({
            ok: false,
            error: { code: "not_found" },
        });
    });

    it("refuses watch without background, and a start past the limit with a message naming the running one", async () => {
        const { shell, repo } = await makeKit({ maxProcesses: 1 });
        const ctx = context(repo.root);
        const run = createShellRunTool(shell);
        expect(await run.execute({ command: "echo x", watch: "x" }, ctx)).toMatchObject({
            ok: false,
            error: { code: "invalid_args" },
        });
        await run.execute({ command: "exec sleep 100", background: true }, ctx);
        expect(
            await run.execute({ command: "exec sleep 101", background: true }, ctx)
        ).toMatchObject({
            ok: false,
            error: {
                code: "process_limit",
                message: expect.stringContaining("p1 `exec sleep 100`"),
            },
        });
    });

    it("moves a running shell_run to the background when the call's detach fires", async () => {
        const { shell, repo } = await makeKit();
        const detach = new AbortController();
        const run = createShellRunTool(shell);
        const result = await run.execute(
            { command: "echo serving; exec sleep 100" },
            context(repo.root, {
                detach: detach.signal,
                onOutput: (text) => {
                    if (text.includes("serving")) detach.abort();
                },
            })
        );
        expect(result).toMatchObject({
            ok: true,
            data: { backgrounded: { id: "p1" }, output: "serving\n" },
        });
        expect(run.display!.resultStatus!(result.ok ? result.data : null)).toBeUndefined();
        expect(run.display!.resultDetail!(result.ok ? result.data : null)[0]).toBe(
            "moved to the background as p1"
        );
        expect(shell.processes.get("p1")?.state).toBe("running");
    });

    it("types into a program and returns its answer; at a password prompt only the user answers", async () => {
        const { shell, repo } = await makeKit();
        const run = createShellRunTool(shell);
        await run.execute(
            {
                command:
                    'read -r name; echo "hello $name"; printf \'Password: \'; read -r secret; echo "length ${#secret}"; exec sleep 100',
                background: true,
            },
            context(repo.root)
        );
        const send = createProcessSendTool(shell);
        const hello = await send.execute({ id: "p1", text: "ann\n" }, context(repo.root));
        expect(hello).toMatchObject({
            ok: true,
            data: { output: expect.stringContaining("hello ann") },
        });
        const plain = await send.execute({ id: "p1", text: "guess\n" }, context(repo.root));
        expect(plain).toMatchObject({ ok: false, error: { code: "invalid_args" } });
        if (!plain.ok) expect(plain.error.message).toMatch(/askUser: true/);
        const secret = "hunter2-do-not-log";
        const asked: string[] = [];
        const answered = await send.execute(
            { id: "p1", askUser: true },
            context(repo.root, {
                requestSecret: async (process, prompt) => {
                    asked.push(`${process.id}: ${prompt}`);
                    await shell.processes.sendSecret(process.id, secret);
                    return "sent";
                },
            })
        );
        expect(asked).toEqual(["p1: Password:"]);
        expect(answered).toMatchObject({ ok: true, data: { answered: true } });
        expect(JSON.stringify(answered)).not.toContain(secret);
        const read = createProcessReadTool(shell);
        const after = await read.execute(
            { id: "p1", wait: { pattern: "length" }, timeoutMs: 20_000 },
            context(repo.root)
        );
        expect(after).toMatchObject({
            ok: true,
            data: { matchedLine: `Password: length ${secret.length}` },
        });
        expect(JSON.stringify(after)).not.toContain(secret);
        // Without a user to ask (print mode), nothing is sent.
        expect(await send.execute({ id: "p1", askUser: true }, context(repo.root))).toMatchObject({
            ok: false,
            error: { code: "io_error" },
        });
    });

    it("says a process has exited when input comes too late", async () => {
        const { shell, repo } = await makeKit();
        await createShellRunTool(shell).execute(
            { command: "echo bye", background: true },
            context(repo.root)
        );
        await createProcessReadTool(shell).execute(
            { id: "p1", wait: "exit", timeoutMs: 20_000 },
            context(repo.root)
        );
        const late = await createProcessSendTool(shell).execute(
            { id: "p1", text: "hi\n" },
            context(repo.root)
        );
        expect(late).toMatchObject({ ok: false, error: { code: "process_exited" } });
        if (!late.ok)
            expect(late.error.message).toContain("has exited with code 0; nothing was sent");
    });
});
