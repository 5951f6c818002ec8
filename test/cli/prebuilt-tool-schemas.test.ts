import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSubagents } from "../../src/agent/subagent-tool";
import { createSkillTool } from "../../src/project/skills";
import { createBuiltinTools } from "../../src/tools/index";
import { createToolRegistry } from "../../src/tools/registry";
import type { ShellService } from "../../src/tools/shell-service";
import type { LanguageService } from "../../src/tools/lsp/types";
import type { AnyToolDefinition } from "../../src/tools/types";
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

const SERVER_BIN = fileURLToPath(
    new URL("../../node_modules/.bin/typescript-language-server", import.meta.url)
);

it("the built CLI sends the tool schemas (built-ins, lsp, task, skill) the zod definitions give at run time", async () => {
    const repo = mkdtempSync(join(tmpdir(), "north-repo-"));
    writeFileSync(join(repo, "README.md"), "# demo\n");
    // A language server binary in the project: the lsp tools are offered from the first request.
    mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
    symlinkSync(SERVER_BIN, join(repo, "node_modules", ".bin", "typescript-language-server"));
    mkdirSync(join(repo, ".north", "skills", "release"), { recursive: true });
    writeFileSync(
        join(repo, ".north", "skills", "release", "SKILL.md"),
        "---\nname: release\ndescription: How to cut a release\n---\nRun the release script."
    );
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
        const sent = new Map(
            (
                server.requests[0]!.body as {
                    tools: Array<{ name: string; input_schema: unknown }>;
                }
            ).tools.map((tool) => [tool.name, tool.input_schema])
        );
        // From source nothing is prebuilt: the registry derives every schema with zod here.
        const derived = createToolRegistry([
            ...createBuiltinTools({
                expandOutput: () => undefined,
                shell: detachedShell,
                languages: { hasServers: () => true } as LanguageService,
            }),
            createSubagents({ agents: [] }).tool,
            createSkillTool([]) as unknown as AnyToolDefinition,
        ]).schemas();
        expect(derived.map((schema) => schema.name)).toEqual(
            expect.arrayContaining(["read_file", "lsp", "lsp_rename", "task", "skill"])
        );
        for (const { name, inputSchema } of derived) {
            expect({ [name]: sent.get(name) }).toEqual({ [name]: inputSchema });
        }
    } finally {
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
});
