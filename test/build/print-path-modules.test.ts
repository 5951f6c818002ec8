import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

// Every file a run opens costs start-up time (open, compile, link), so the print
// path's chunk count is a budget: pre-refactor builds loaded 24, this one 27.
// New `import()` split points cut shared code into more chunks; see
// src/cli/engine-entry.ts and src/cli/subcommands.ts before raising this.
const PRINT_RUN_CHUNK_BUDGET = 30;

let server: FakeLlmServer;
let work: string;

beforeAll(async () => {
    server = await startFakeLlmServer();
    work = mkdtempSync(join(tmpdir(), "north-modules-"));
    // A module hook that notes each file of dist/ the run loads.
    writeFileSync(
        join(work, "hooks.mjs"),
        `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
    if (url.includes("/dist/")) appendFileSync(log, url + "\\n");
    return next(url, context);
}
`
    );
    writeFileSync(
        join(work, "register.mjs"),
        `import { register } from "node:module";
register(new URL("./hooks.mjs", import.meta.url), { data: { log: process.env.NORTH_TEST_MODULE_LOG } });
`
    );
});
afterAll(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
});

/** Runs the built CLI and returns the names of the dist/ files it loaded. */
async function loadedFiles(args: string[], name: string): Promise<string[]> {
    const log = join(work, `${name}.log`);
    writeFileSync(log, "");
    const { env } = isolatedHome();
    const run = await runNorth(args, {
        env: {
            ...env,
            ANTHROPIC_API_KEY: "k",
            ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
            NODE_OPTIONS: `--import=${join(work, "register.mjs")}`,
            NORTH_TEST_MODULE_LOG: log,
        },
        cwd: work,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    return readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((url) => basename(new URL(url).pathname));
}

// Module hooks (`module.register`) arrived in Node 20.6.
describe.skipIf(typeof module.register !== "function")("what a run loads from dist/", () => {
    it("a print run loads the engine and the Anthropic provider in a few chunks, and no chat UI, MCP, OpenAI or other commands", async () => {
        server.enqueue({ text: "hello" });
        const files = await loadedFiles(
            ["-p", "hi", "--path", work, "--output-format", "json"],
            "print"
        );
        expect(files).toContain("cli.js");
        expect(files.some((file) => file.startsWith("engine-entry-"))).toBe(true);
        expect(files.some((file) => file.startsWith("anthropic-"))).toBe(true);
        const unexpected = files.filter((file) =>
            /^(run-app|interactive-command|manager|openai-responses|openai-chat|subcommands|marked)[.-]/.test(
                file
            )
        );
        expect(unexpected).toEqual([]);
        expect(files.length).toBeLessThanOrEqual(PRINT_RUN_CHUNK_BUDGET);
    });

    it("north --version loads no engine code", async () => {
        const files = await loadedFiles(["--version"], "version");
        expect(files).toContain("cli.js");
        expect(files.some((file) => file.startsWith("engine-entry-"))).toBe(false);
        expect(files.length).toBeLessThanOrEqual(4);
    });
});
