/**
 * The first request's size with the lsp tools offered (a trusted project
 * where a language server was found), measured as bench/prompt-size.ts
 * does: system prompt, every tool schema (the subagent `task` tool too) and
 * a one-line prompt. The budget holds the background-process tools too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Mode } from "../../src/agent/events";
import { createSubagents } from "../../src/agent/subagent-tool";
import { buildSystemPrompt } from "../../src/agent/system-prompt";
import { createConversationToolset } from "../../src/cli/toolset";
import type { LanguageService } from "../../src/tools/lsp/types";

const BUDGET = 18_500;
const PROMPT = "where is the retry logic?";

function firstRequestSize(mode: Extract<Mode, "agent" | "ask">): { size: number; tools: string[] } {
    const dir = mkdtempSync(join(tmpdir(), "north-first-request-"));
    const languages = { hasServers: () => true } as LanguageService;
    const toolset = createConversationToolset(dir, [createSubagents({ agents: [] }).tool], {
        languages,
    });
    try {
        const offered = toolset.registry.list().filter((t) => mode === "agent" || t.readOnly);
        const names = new Set(offered.map((t) => t.name));
        const schemas = toolset.registry.schemas((t) => names.has(t.name));
        const system = buildSystemPrompt({ repoRoot: "/home/user/project", mode, tools: offered });
        const toolChars = JSON.stringify(
            schemas.map((t) => ({
                name: t.name,
                description: t.description,
                input_schema: t.inputSchema,
            }))
        ).length;
        return { size: system.length + toolChars + PROMPT.length, tools: [...names] };
    } finally {
        toolset.dispose();
        rmSync(dir, { recursive: true, force: true });
    }
}

const PROCESS_TOOLS = ["process_read", "process_send", "process_stop"];

describe("first request with the lsp tools", () => {
    it(`agent mode offers lsp, lsp_rename and the process tools within ${BUDGET} characters`, () => {
        const { size, tools } = firstRequestSize("agent");
        expect(tools).toEqual(expect.arrayContaining(["lsp", "lsp_rename", ...PROCESS_TOOLS]));
        expect(size).toBeLessThanOrEqual(BUDGET);
    });

    it("ask mode offers lsp but not the rename", () => {
        const { tools } = firstRequestSize("ask");
        expect(tools).toContain("lsp");
        expect(tools).not.toContain("lsp_rename");
        expect(tools.filter((name) => PROCESS_TOOLS.includes(name))).toEqual([]);
    });
});
