import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBuiltinTools } from "../../src/tools/index";
import { createToolRegistry } from "../../src/tools/registry";
import type { ShellService } from "../../src/tools/shell-service";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});

const detachedShell: ShellService = {
    run: () => Promise.reject(new Error("not run in this test")),
    cwd: "",
    dispose: () => undefined,
};

it("the built CLI sends the built-in tool schemas the zod definitions give at run time", async () => {
    const repo = mkdtempSync(join(tmpdir(), "north-repo-"));
    writeFileSync(join(repo, "README.md"), "# demo\n");
    const { home, env } = isolatedHome();
    try {
        server.enqueue({ text: "ok" });
        const run = await runNorth(["-p", "hi", "--path", repo], {
            env: {
                ...env,
                ANTHROPIC_API_KEY: "test-key",
                ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
            },
        });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        const sent = (
            server.requests[0]!.body as {
                tools: Array<{ name: string; input_schema: unknown }>;
            }
        ).tools;
        const derived = new Map(
            createToolRegistry(
                createBuiltinTools({ expandOutput: () => undefined, shell: detachedShell })
            )
                .schemas()
                .map((schema) => [schema.name, schema.inputSchema])
        );
        const sentBuiltins = sent.filter((tool) => derived.has(tool.name));
        expect(sentBuiltins.map((tool) => tool.name)).toContain("read_file");
        expect(sentBuiltins.length).toBeGreaterThan(10);
        for (const tool of sentBuiltins) {
            expect({ [tool.name]: tool.input_schema }).toEqual({
                [tool.name]: derived.get(tool.name),
            });
        }
    } finally {
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
});
