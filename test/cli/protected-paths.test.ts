import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

/** What each target holds before the run. */
const CONFIG = '{\n    "x": 1\n}\n';
const TARGETS = ["sub/.git/config", ".claude/settings.json", ".mcp.json", ".north/settings.json"];

// A server per test: a failed run's unused turns must not leak into the next test.
beforeEach(async () => {
    server = await startFakeLlmServer();
    repo = mkdtempSync(join(tmpdir(), "north-protected-"));
    for (const target of TARGETS) {
        mkdirSync(dirname(join(repo, target)), { recursive: true });
        writeFileSync(join(repo, target), CONFIG);
    }
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
});
afterEach(async () => {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const read = (rel: string) => readFileSync(join(repo, rel), "utf8");
const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });

/**
 * NORTH_FILE, then every write tool once. Each edit matches the original
 * content and the result of the ones before it, so when writes are refused
 * every tool reaches the review, and when allowed every marker lands.
 */
function everyWriteTool(path: string) {
    const x = '"x": 1';
    return [
        { text: `<NORTH_FILE path="${path}">\n{"nf": 1}\n</NORTH_FILE>` },
        call("edit_create_file", { path, content: `// m0\n{\n    ${x}\n}\n`, overwrite: true }),
        call("edit_replace_block", {
            path,
            start_anchor: "{",
            end_anchor: "}",
            content: `    ${x}, "m6": 1`,
        }),
        call("edit_replace_exact", { path, old_text: x, new_text: `${x}, "m1": 1` }),
        call("edit_insert_at_line", { path, line: 1, content: "// m2" }),
        call("edit_after_anchor", { path, anchor: x, content: "// m3" }),
        call("edit_before_anchor", { path, anchor: x, content: "// m4" }),
        call("edit_by_anchor", { path, anchor: x, mode: "insert_after", content: "// m5" }),
        call("edit_apply_batch", {
            edits: [{ tool: "edit_replace_exact", path, old_text: "}", new_text: "} // m7" }],
        }),
    ];
}

const MARKERS = ["m0", '"x": 1, "m1": 1, "m6": 1', "m2", "m3", "m4", "m5", "} // m7"];

async function runEveryTool(path: string, flags: string[]) {
    server.enqueue(...everyWriteTool(path), { text: "done" });
    const run = await runNorth(
        ["-p", "edit it", "--path", repo, "--output-format", "json", ...flags],
        { env }
    );
    expect(run.code, run.stderr).toBe(0);
    expect(server.remaining()).toBe(0);
    const calls = JSON.parse(run.stdout).tool_calls as { name: string; ok: boolean }[];
    expect(calls.map((c) => c.name)).toEqual([
        "edit_create_file",
        "edit_replace_block",
        "edit_replace_exact",
        "edit_insert_at_line",
        "edit_after_anchor",
        "edit_before_anchor",
        "edit_by_anchor",
        "edit_apply_batch",
    ]);
    /** What the model read after turn `i` (0: the NORTH_FILE note; 1..8: tool results). */
    const afterTurn = (i: number) => {
        const body = server.requests[i + 1]!.body as { messages: unknown[] };
        return JSON.stringify(body.messages.at(-1));
    };
    return { calls, afterTurn };
}

describe("protected configuration in print mode", () => {
    for (const path of [".claude/settings.json", ".mcp.json", ".north/settings.json"]) {
        it(`${path}: every write tool and NORTH_FILE are refused with --allow-edits, naming --allow-config-edits`, async () => {
            const { calls, afterTurn } = await runEveryTool(path, ["--allow-edits"]);
            expect(calls.every((c) => !c.ok)).toBe(true);
            expect(afterTurn(0)).toContain(`NORTH_FILE ${path}: rejected`);
            for (let i = 1; i <= 8; i++) {
                expect(afterTurn(i)).toContain("--allow-config-edits");
                expect(afterTurn(i)).toContain("nothing was written");
            }
            expect(read(path)).toBe(CONFIG);
            expect(read("sub/.git/config")).toBe(CONFIG);
        });

        it(`${path}: every write tool and NORTH_FILE apply with --allow-edits --allow-config-edits`, async () => {
            const { calls, afterTurn } = await runEveryTool(path, [
                "--allow-edits",
                "--allow-config-edits",
            ]);
            expect(afterTurn(0)).toContain(`NORTH_FILE ${path}: written`);
            expect(calls.map((c) => c.ok)).toEqual(Array(8).fill(true));
            for (const marker of MARKERS) expect(read(path)).toContain(marker);
        });
    }

    it("--allow-config-edits alone grants no edit at all", async () => {
        const { calls } = await runEveryTool(".mcp.json", ["--allow-config-edits"]);
        expect(calls.every((c) => !c.ok)).toBe(true);
        expect(read(".mcp.json")).toBe(CONFIG);
    });
});

describe("git internals in print mode", () => {
    it("sub/.git/config is refused to every write tool and NORTH_FILE, even with both flags", async () => {
        const { calls, afterTurn } = await runEveryTool("sub/.git/config", [
            "--allow-edits",
            "--allow-config-edits",
        ]);
        expect(calls.every((c) => !c.ok)).toBe(true);
        expect(afterTurn(0)).toContain("NORTH_FILE sub/.git/config: failed");
        for (let i = 1; i <= 8; i++) expect(afterTurn(i)).toContain("git's internals");
        expect(read("sub/.git/config")).toBe(CONFIG);
    });
});

describe("two North processes editing one file at once", () => {
    it("lose no edit either of them was told was applied", async () => {
        const other = await startFakeLlmServer();
        try {
            writeFileSync(join(repo, "app.ts"), "const a = 1;\nconst b = 2;\n");
            const edit = (from: string, to: string) =>
                call("edit_replace_exact", { path: "app.ts", old_text: from, new_text: to });
            server.enqueue(edit("a = 1", "a = 10"), { text: "done" });
            other.enqueue(edit("b = 2", "b = 20"), { text: "done" });
            const args = ["-p", "edit", "--path", repo, "--allow-edits", "--output-format", "json"];
            const [first, second] = await Promise.all([
                runNorth(args, { env }),
                runNorth(args, { env: { ...env, ANTHROPIC_BASE_URL: other.anthropicBaseUrl } }),
            ]);
            const applied = [first, second].map(
                (run) => (JSON.parse(run.stdout).tool_calls as { ok: boolean }[])[0]!.ok
            );
            // Whichever order the OS gave them, at least one landed and every "ok" is on disk.
            expect(applied).toContain(true);
            const text = read("app.ts");
            expect(text.includes("a = 10")).toBe(applied[0]);
            expect(text.includes("b = 20")).toBe(applied[1]);
            expect(server.remaining() + other.remaining()).toBe(0);
        } finally {
            await other.close();
        }
    });
});
