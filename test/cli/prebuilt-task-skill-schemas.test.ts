import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSubagents } from "../../src/agent/subagent-tool";
import { createSkillTool } from "../../src/project/skills";
import { createToolRegistry } from "../../src/tools/registry";
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

it("the built CLI sends the task and skill schemas their zod definitions give at run time", async () => {
    const repo = mkdtempSync(join(tmpdir(), "north-repo-"));
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
        const sent = (
            server.requests[0]!.body as { tools: Array<{ name: string; input_schema: unknown }> }
        ).tools;
        // From source nothing is prebuilt: the registry derives both with zod here.
        const derived = createToolRegistry([
            createSubagents({ agents: [] }).tool,
            createSkillTool([]) as unknown as AnyToolDefinition,
        ]).schemas();
        for (const { name, inputSchema } of derived) {
            const tool = sent.find((candidate) => candidate.name === name);
            expect({ [name]: tool?.input_schema }).toEqual({ [name]: inputSchema });
        }
    } finally {
        rmSync(repo, { recursive: true, force: true });
        rmSync(home, { recursive: true, force: true });
    }
});
