import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createShellRunTool } from "../../src/tools/shell-run";
import { type ShellService, createShellService } from "../../src/tools/shell-service";
import type { ToolContext } from "../../src/tools/types";
import { inputSchema } from "../../src/tools/tool-input";
import { zod } from "../../src/util/zod-runtime";

let root: string;
let shell: ShellService;

beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "north-shell-run-test-")));
    shell = createShellService(root);
});

afterEach(() => {
    shell.dispose();
    rmSync(root, { recursive: true, force: true });
});

function ctx(signal = new AbortController().signal): ToolContext {
    return { repoRoot: root, signal };
}

/** The messages the model would read for `input`, or null when it is valid. */
function inputErrors(input: unknown): string[] | null {
    const parsed = inputSchema(createShellRunTool(shell).input).safeParse(input);
    return parsed.success ? null : parsed.error.issues.map((issue) => issue.message);
}

describe("shell_run tool", () => {
    it("is a non-read-only tool under the shell approval policy", () => {
        const tool = createShellRunTool(shell);
        expect(tool.name).toBe("shell_run");
        expect(tool.approvalPolicy).toBe("shell");
        expect(tool.readOnly).toBe(false);
        for (const words of ["bash", "persists", "60 s", "10 min", "stdin is closed"]) {
            expect(tool.description).toContain(words);
        }
        // Servers and watchers run in the background now (issue 35), and the description says how.
        expect(tool.description).toMatch(/servers, watchers and prompts use background or tty/);
        expect(tool.description).toMatch(/first and last 64 KB/);
    });

    it("has a small JSON schema: command required, timeoutMs an optional bounded integer", () => {
        const schema = zod().toJSONSchema(
            inputSchema(createShellRunTool(shell).input)
        ) as unknown as {
            required: string[];
            properties: { timeoutMs: { type: string; minimum: number; maximum: number } };
        };
        expect(schema.required).toEqual(["command"]);
        expect(schema.properties.timeoutMs).toMatchObject({
            type: "integer",
            minimum: 1000,
            maximum: 600000,
        });
        // background, tty and watch (issue 35) added about 200 characters.
        expect(JSON.stringify(schema).length).toBeLessThan(800);
    });

    it("rejects an empty command with a message for the model", () => {
        for (const command of ["", "   ", "\n\t"]) {
            expect(inputErrors({ command })).toEqual([
                'command is empty; pass the bash command to run, e.g. "npm test"',
            ]);
        }
        expect(inputErrors({})?.[0]).toMatch(/command must be a string/);
    });

    it("rejects an invalid timeout with the allowed range", () => {
        for (const timeoutMs of [0, 999, 600_001, 1500.5, -1, "60000", null]) {
            const errors = inputErrors({ command: "true", timeoutMs });
            expect(errors, String(timeoutMs)).not.toBeNull();
            expect(errors![0]).toMatch(/from 1000 to 600000/);
        }
        expect(inputErrors({ command: "true", timeoutMs: 1000 })).toBeNull();
        expect(inputErrors({ command: "true", timeoutMs: 600_000 })).toBeNull();
    });

    it("returns the command and the run's result", async () => {
        const tool = createShellRunTool(shell);
        const result = await tool.execute({ command: "echo hi; exit 2" }, ctx());
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.data).toMatchObject({
            command: "echo hi; exit 2",
            exitCode: 2,
            output: "hi\n",
            timedOut: false,
            cancelled: false,
            cwd: ".",
        });
    });

    it("reports a timeout as a result with the output so far", async () => {
        const tool = createShellRunTool(shell);
        const result = await tool.execute(
            { command: "echo before; sleep 30", timeoutMs: 1000 },
            ctx()
        );
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.data).toMatchObject({ timedOut: true, output: "before\n", exitCode: null });
    });

    it("stops the command when the turn is cancelled", async () => {
        const tool = createShellRunTool(shell);
        const controller = new AbortController();
        // Cancelled once the command runs (it says so), however slow the machine.
        const running: ToolContext = {
            ...ctx(controller.signal),
            onOutput: (text) => {
                if (text.includes("running")) controller.abort();
            },
        };
        const started = performance.now();
        const result = await tool.execute({ command: "echo running; sleep 100 & wait" }, running);
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.data.cancelled).toBe(true);
    });

    it("turns a disposed service into an error result instead of a throw", async () => {
        const tool = createShellRunTool(shell);
        shell.dispose();
        const result = await tool.execute({ command: "true" }, ctx());
        expect(result).toEqual({
            ok: false,
            error: { code: "io_error", message: expect.stringMatching(/disposed/) },
        });
    });
});
