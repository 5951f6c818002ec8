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

const CRLF = Buffer.from("const a = 1;\r\nconst b = 2;\r\n");
const BOM = Buffer.from("\uFEFFexport const name = 'x';\n", "utf8");
const BINARYISH = Buffer.from([0x00, 0xff, 0xfe, 0x1b, 0x5b, 0x0d, 0x0a, 0xc3, 0x28, 0x7f]);

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-rewind-repo-"));
    writeFileSync(join(repo, "crlf.ts"), CRLF);
    writeFileSync(join(repo, "bom.ts"), BOM);
    writeFileSync(join(repo, "blob.bin"), BINARYISH);
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

const bytes = (name: string) => readFileSync(join(repo, name));
const dataDir = () => env.NORTH_DATA_DIR as string;

const BATCH = {
    name: "edit_apply_batch",
    input: {
        edits: [
            { tool: "edit_replace_exact", path: "crlf.ts", old_text: "b = 2", new_text: "b = 3" },
            {
                tool: "edit_replace_exact",
                path: "bom.ts",
                old_text: "'x'",
                new_text: "'y'",
            },
            { tool: "edit_create_file", path: "src/made/new.ts", content: "new\n" },
        ],
    },
};
const bumpRetries = {
    name: "edit_replace_exact",
    input: { path: "app.ts", old_text: "retries = 3", new_text: "retries = 5" },
};

/** A print-mode prompt with edits allowed; returns the conversation id. */
async function prompt(text: string, turns: Parameters<FakeLlmServer["enqueue"]>, id?: string) {
    server.enqueue(...turns);
    const resume = id ? ["--resume", id] : [];
    const run = await runNorth(
        ["-p", ...resume, text, "--path", repo, "--allow-edits", "--output-format", "json"],
        { env }
    );
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout).session_id as string;
}

const rewind = (...args: string[]) => runNorth(["rewind", ...args], { env });

describe("north rewind", () => {
    it("a code rewind also undoes edits of prompts an earlier conversation rewind took away", async () => {
        // 1: no edit; 2: retries 3 → 5; conversation (only) rewound to before 2; 2': retries 5 → 7.
        const id = await prompt("one: just look", [{ text: "Looked." }]);
        await prompt("two: bump", [{ toolCalls: [bumpRetries] }, { text: "Five." }], id);
        const back = await rewind(id, "--to", "2", "--conversation");
        expect(back.code, back.stderr).toBe(0);
        expect(bytes("app.ts").toString()).toBe("export const retries = 5;\n");
        const seven = {
            name: "edit_replace_exact",
            input: { path: "app.ts", old_text: "retries = 5", new_text: "retries = 7" },
        };
        await prompt("two again: seven", [{ toolCalls: [seven] }, { text: "Seven." }], id);

        // Before prompt 1 the file said 3: prompt 2's edit counts though it was rewound away.
        const restored = await rewind(id, "--to", "1", "--code");
        expect(restored.code, restored.stderr).toBe(0);
        expect(bytes("app.ts").toString()).toBe("export const retries = 3;\n");
    });

    it("lists the prompts with what each would restore, then restores the exact bytes", async () => {
        const id = await prompt("first: the batch", [{ toolCalls: [BATCH] }, { text: "Done." }]);
        await prompt(
            "second: rewrite blob.bin",
            [
                { text: '<NORTH_FILE path="blob.bin">\nplain text now\n</NORTH_FILE>' },
                { text: "ok" },
            ],
            id
        );
        expect(bytes("crlf.ts").toString()).toBe("const a = 1;\r\nconst b = 3;\r\n");
        expect(bytes("blob.bin").toString()).toBe("plain text now\n");

        const listed = await rewind(id);
        expect(listed.code).toBe(0);
        expect(listed.stdout).toContain(
            "  1. first: the batch\n     restores: crlf.ts, bom.ts, src/made/new.ts (deleted), blob.bin\n"
        );
        expect(listed.stdout).toContain("  2. second: rewrite blob.bin\n     restores: blob.bin\n");
        expect(listed.stdout).toContain("Changes made by shell commands are not tracked");
        expect(bytes("blob.bin").toString()).toBe("plain text now\n");

        const second = await rewind(id, "--to", "2", "--code");
        expect(second.code, second.stderr).toBe(0);
        expect(second.stdout).toContain("restored blob.bin");
        expect(bytes("blob.bin").equals(BINARYISH)).toBe(true);
        expect(bytes("crlf.ts").toString()).toBe("const a = 1;\r\nconst b = 3;\r\n");

        const first = await rewind(id, "--to", "1", "--code");
        expect(first.code, first.stderr).toBe(0);
        expect(first.stdout).toContain("deleted src/made/new.ts (North created it)");
        expect(bytes("crlf.ts").equals(CRLF)).toBe(true);
        expect(bytes("bom.ts").equals(BOM)).toBe(true);
        expect(bytes("blob.bin").equals(BINARYISH)).toBe(true);
        expect(existsSync(join(repo, "src/made/new.ts"))).toBe(false);
        // --code leaves the conversation as it was.
        expect((await rewind(id)).stdout).toContain("  2. second: rewrite blob.bin");
    });

    it("keeps a file the user changed since, says so, and overwrites it only with --force", async () => {
        const id = await prompt("bump retries", [
            { toolCalls: [bumpRetries, BATCH] },
            { text: "Done." },
        ]);
        writeFileSync(join(repo, "app.ts"), "export const retries = 42; // mine\n");

        const listed = await rewind(id);
        expect(listed.stdout).toContain("app.ts [changed since]");
        const kept = await rewind(id, "--to", "1", "--code");
        expect(kept.code).toBe(1);
        expect(kept.stdout).toContain("kept app.ts: changed since North last changed it");
        expect(kept.stderr).toContain("run again with --force to overwrite it");
        expect(bytes("app.ts").toString()).toBe("export const retries = 42; // mine\n");
        expect(bytes("crlf.ts").equals(CRLF)).toBe(true);

        const forced = await rewind(id, "--to", "1", "--code", "--force");
        expect(forced.code, forced.stderr).toBe(0);
        expect(bytes("app.ts").toString()).toBe("export const retries = 3;\n");
    });

    it("with the checkpoint store deleted: a clear message, and the conversation is still rewound", async () => {
        const id = await prompt("bump retries", [
            { toolCalls: [bumpRetries] },
            { text: "Bumped." },
        ]);
        await prompt("and explain", [{ text: "Explained." }], id);
        rmSync(join(dataDir(), "checkpoints"), { recursive: true });

        const listed = await rewind(id);
        expect(listed.code).toBe(0);
        expect(listed.stdout).toContain(`Code: the checkpoints of conversation ${id} are gone`);
        const run = await rewind(id, "--to", "2");
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`north: the checkpoints of conversation ${id} are gone`);
        expect(run.stdout).toContain(`Conversation ${id} rewound to before prompt 2`);
        expect(bytes("app.ts").toString()).toBe("export const retries = 5;\n");

        // Continued in place: the rewind released the conversation.
        expect(await prompt("a new second question", [{ text: "ok" }], id)).toBe(id);
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        expect(sent).toContain("bump retries");
        expect(sent).not.toContain("and explain");
        expect(sent).toContain("a new second question");
    });

    it("refuses bad input with exit 2 and changes nothing", async () => {
        const id = await prompt("bump retries", [
            { toolCalls: [bumpRetries] },
            { text: "Bumped." },
        ]);
        const out = await rewind(id, "--to", "7");
        expect(out.code).toBe(2);
        expect(out.stderr).toContain(
            `--to 7: choose a prompt from 1 to 1 (north rewind ${id} lists them)`
        );
        const both = await rewind(id, "--to", "1", "--code", "--conversation");
        expect(both.code).toBe(2);
        const unknown = await rewind("ffffff", "--to", "1");
        expect(unknown.code).toBe(2);
        const misplaced = await runNorth(["-p", "hi", "--to", "1"], { env });
        expect(misplaced.code).toBe(2);
        expect(misplaced.stderr).toContain("--to is an option of north rewind");
        expect(bytes("app.ts").toString()).toBe("export const retries = 5;\n");
    });
});

describe("a checkpoint that cannot be saved", () => {
    it("refuses the edit: the file is unchanged, the user warned, the model told why", async () => {
        mkdirSync(dataDir(), { recursive: true });
        // A file where the store's folder should be: mkdir fails even for root.
        writeFileSync(join(dataDir(), "checkpoints"), "in the way\n");
        server.enqueue({ toolCalls: [bumpRetries] }, { text: "I could not edit it." });
        const run = await runNorth(["-p", "bump retries", "--path", repo, "--allow-edits"], {
            env,
        });
        expect(run.code).toBe(0);
        expect(bytes("app.ts").toString()).toBe("export const retries = 3;\n");
        expect(run.stderr).toContain("north: warning: Could not save a checkpoint of app.ts (");
        const sent = JSON.stringify(server.requests.at(-1)!.body);
        expect(sent).toContain("Could not save a checkpoint of app.ts");
        expect(sent).toContain("nothing was changed");
    });
});
