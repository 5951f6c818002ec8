import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome } from "../kit/run-north";

// A program outside the checkout imports the built package by its name, as after
// `npm install north-agent`: node_modules/north-agent links to the checkout.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

let server: FakeLlmServer;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    if (!existsSync(join(ROOT, "dist", "api.js"))) {
        throw new Error("dist/ is missing: run `node scripts/build.mjs` before this test");
    }
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = join(home, "repo");
    mkdirSync(repo);
    writeFileSync(join(repo, "app.ts"), "export const retries = 3;\n");
    const app = join(home, "app");
    mkdirSync(join(app, "node_modules"), { recursive: true });
    symlinkSync(ROOT, join(app, "node_modules", "north-agent"), "dir");
    env = {
        ...isolated.env,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        REPO: repo,
    };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(home, { recursive: true, force: true });
});

/** Runs `source` as an ES module of the app; it prints one JSON line. */
async function runProgram(source: string): Promise<Record<string, unknown>> {
    const file = join(home, "app", "program.mjs");
    writeFileSync(file, source);
    const { stdout } = await run(process.execPath, [file], { env, cwd: join(home, "app") });
    return JSON.parse(stdout) as Record<string, unknown>;
}

const edit = {
    name: "edit_replace_exact",
    input: { path: "app.ts", old_text: "retries = 3", new_text: "retries = 5" },
};

describe('import { createSession } from "north-agent"', () => {
    it("streams a run's events, asks approve(), and keeps one conversation across runs", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "Bumped to 5." }, { text: "It was 3." });
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const approvals = [];
            const session = await createSession({
                cwd: process.env.REPO,
                approve: async (request) => {
                    approvals.push(request);
                    return { decision: "approve" };
                },
            });
            const types = [];
            for await (const event of session.run("bump retries")) types.push(event.type);
            const second = await session.run("what was it before?");
            await session.close();
            console.log(JSON.stringify({ types, approvals, second, id: session.sessionId }));
        `);
        const types = out.types as string[];
        expect(types[0]).toBe("system");
        expect(types).toEqual(
            expect.arrayContaining(["tool_call", "approval", "tool_result", "text_delta"])
        );
        expect(types.at(-1)).toBe("result");
        expect(out.approvals).toEqual([
            expect.objectContaining({ type: "approval_request", kind: "write", tool: edit.name }),
        ]);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 5;\n");
        expect(out.second).toMatchObject({
            type: "result",
            subtype: "success",
            result: "It was 3.",
            session_id: out.id,
        });
        const third = JSON.stringify(server.requests[2]!.body);
        expect(third).toContain("bump retries");
        expect(third).toContain("Bumped to 5.");
    });

    it("denies approvals without approve(), cancels with a signal, and rejects a bad model", async () => {
        server.enqueue({ toolCalls: [edit] }, { text: "Not allowed." });
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const session = await createSession({ cwd: process.env.REPO });
            const denied = await session.run("bump retries");
            const cancelled = await session.run("anything", { signal: AbortSignal.abort() });
            await session.close();
            const badModel = await createSession({ cwd: process.env.REPO, model: "no-such-model" })
                .then(() => "opened", (error) => error.message);
            console.log(JSON.stringify({ denied, cancelled, badModel }));
        `);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 3;\n");
        expect(out.denied).toMatchObject({ subtype: "success", result: "Not allowed." });
        expect(JSON.stringify(server.requests[1]!.body)).toContain("no approver");
        expect(out.cancelled).toMatchObject({ is_error: true });
        expect(server.requests).toHaveLength(2);
        expect(out.badModel).toContain("no-such-model");
    });

    it("sends a denial's reason to the model, and refuses an overlong one with a warning", async () => {
        server.enqueue(
            { toolCalls: [edit] },
            { text: "Will use 4." },
            { toolCalls: [edit] },
            {
                text: "Understood.",
            }
        );
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const warnings = [];
            let reason = "make it 4 instead";
            const session = await createSession({
                cwd: process.env.REPO,
                approve: async () => ({ decision: "deny", reason }),
                onWarning: (message) => warnings.push(message),
            });
            await session.run("bump retries");
            reason = "x".repeat(2001);
            await session.run("bump retries again");
            await session.close();
            console.log(JSON.stringify({ warnings }));
        `);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 3;\n");
        expect(JSON.stringify(server.requests[1]!.body)).toContain("make it 4 instead");
        const refused = JSON.stringify(server.requests[3]!.body);
        expect(refused).not.toContain("x".repeat(2001));
        expect(refused).toContain("the user rejected this edit");
        expect(out.warnings).toEqual([
            expect.stringContaining('"reason" is 2001 characters; at most 2000 are read'),
        ]);
    });

    it('an edit approved with remember "all" puts the session in accept-edits for its later runs; a bad remember is refused', async () => {
        const second = {
            name: "edit_replace_exact",
            input: { path: "app.ts", old_text: "retries = 5", new_text: "retries = 7" },
        };
        server.enqueue(
            { toolCalls: [edit] },
            { text: "Bumped." },
            { toolCalls: [second] },
            { text: "Bumped again." },
            { toolCalls: [{ name: "shell_run", input: { command: "echo hi" } }] },
            { text: "Not run." }
        );
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const asked = [];
            const warnings = [];
            const session = await createSession({
                cwd: process.env.REPO,
                approve: async (request) => {
                    asked.push(request.kind);
                    return { decision: "approve", remember: "all" };
                },
                onWarning: (message) => warnings.push(message),
            });
            const modes = [];
            for await (const event of session.run("bump retries")) {
                if (event.type === "mode") modes.push(event.mode);
            }
            await session.run("bump them again");
            await session.run("say hi");
            await session.close();
            console.log(JSON.stringify({ asked, modes, warnings }));
        `);
        expect(readFileSync(join(repo, "app.ts"), "utf8")).toBe("export const retries = 7;\n");
        expect(out.modes).toEqual(["accept-edits"]);
        // The second edit was not asked about; the command was, and remember "all" refused it.
        expect(out.asked).toEqual(["write", "shell"]);
        expect(out.warnings).toEqual([expect.stringContaining("answers an edit's approval only")]);
        expect(JSON.stringify(server.requests[5]!.body)).toContain("the user denied this command");
    });

    it("rejects a prompt over 10 MB or over the window with a clear error; the session goes on unchanged", async () => {
        server.enqueue({ text: "Still here." });
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const session = await createSession({ cwd: process.env.REPO });
            const errorOf = (prompt) => session.run(prompt).then(() => "ran", (error) => error.message);
            const huge = await errorOf("HUGE" + "a".repeat(11 * 1024 * 1024));
            const wide = await errorOf("WIDE" + "b".repeat(4 * 1024 * 1024));
            const next = await session.run("are you alive?");
            await session.close();
            console.log(JSON.stringify({ huge, wide, next }));
        `);
        expect(out.huge).toBe(
            "the prompt is 11 MB, over the 10 MB limit of one prompt; nothing was sent or saved"
        );
        expect(out.wide).toMatch(
            /more than .*'s 1000000-token context window; nothing was sent or saved/
        );
        expect(out.next).toMatchObject({ subtype: "success", result: "Still here." });
        expect(server.requests).toHaveLength(1);
        const sent = JSON.stringify(server.requests[0]!.body);
        expect(sent).not.toContain("HUGE");
        expect(sent).not.toContain("WIDE");
    });

    it("gives commands the env option's variables over process.env without changing process.env", async () => {
        server.enqueue(
            {
                toolCalls: [
                    {
                        name: "shell_run",
                        input: { command: 'echo "api=$API_VAR gone=${GONE_VAR:-unset}"' },
                    },
                ],
            },
            { text: "Echoed." }
        );
        env.GONE_VAR = "inherited";
        const out = await runProgram(`
            import { createSession } from "north-agent";
            const session = await createSession({
                cwd: process.env.REPO,
                env: { API_VAR: "from-option", GONE_VAR: undefined },
                approve: async () => ({ decision: "approve" }),
            });
            const result = await session.run("echo it");
            await session.close();
            console.log(JSON.stringify({
                text: result.text ?? null,
                apiVar: process.env.API_VAR ?? null,
                goneVar: process.env.GONE_VAR ?? null,
            }));
        `);
        expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(
            "api=from-option gone=unset"
        );
        expect(out).toMatchObject({ apiVar: null, goneVar: "inherited" });
    });

    it("type-checks a TypeScript consumer against the package's declarations", async () => {
        const app = join(home, "app");
        writeFileSync(
            join(app, "consumer.ts"),
            `import { createSession, type NorthEvent, type NorthResult } from "north-agent";
const session = await createSession({ mode: "ask", approve: async () => ({ decision: "deny", reason: "no" }) });
for await (const event of session.run("hi")) {
    const kind: NorthEvent["type"] = event.type;
    void kind;
}
const result: NorthResult = await session.run("again");
const cost: number | null = result.total_cost_usd;
void cost;
// @ts-expect-error: mode is agent, ask or plan
await createSession({ mode: "yolo" });
`
        );
        writeFileSync(
            join(app, "tsconfig.json"),
            JSON.stringify({
                compilerOptions: {
                    module: "nodenext",
                    moduleResolution: "nodenext",
                    target: "es2022",
                    strict: true,
                    noEmit: true,
                    // A Node program has Node's types (AbortSignal is one).
                    typeRoots: [join(ROOT, "node_modules", "@types")],
                    types: ["node"],
                    lib: ["es2022", "esnext.asynciterable"],
                },
                files: ["consumer.ts"],
            })
        );
        writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module" }));
        const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
        const result = await run(process.execPath, [tsc, "-p", app]).then(
            () => ({ code: 0, output: "" }),
            (error: { stdout: string }) => ({ code: 1, output: error.stdout })
        );
        expect(result).toEqual({ code: 0, output: "" });
    }, 120_000); // a whole tsc run: slow on a loaded machine
});
