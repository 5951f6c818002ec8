/**
 * Size of the first request of a conversation: system prompt, every tool
 * schema and a one-line prompt, as the Anthropic provider would send them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSubagents } from "../src/agent/subagent-tool";
import { buildSystemPrompt } from "../src/agent/system-prompt";
import { createConversationToolset } from "../src/cli/toolset";
import type { LanguageService } from "../src/tools/lsp/types";

/** A trusted project where some language server binary was found: the lsp tools are offered. */
const serversFound = { hasServers: () => true } as unknown as LanguageService;

export async function benchPromptSize(): Promise<void> {
    console.log("\n## First request size (target ≤ 18,500 characters)");
    await measure("no language server", undefined);
    await measure("a language server found", serversFound);
}

async function measure(label: string, languages: LanguageService | undefined): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), "north-prompt-"));
    const toolset = createConversationToolset(dir, [createSubagents({ agents: [] }).tool], {
        languages,
    });
    try {
        console.log(`${label}:`);
        for (const mode of ["agent", "ask"] as const) {
            const tools = toolset.registry.schemas((t) => mode === "agent" || t.readOnly);
            const system = buildSystemPrompt({
                repoRoot: "/home/user/project",
                mode,
                tools: toolset.registry.list().filter((t) => mode === "agent" || t.readOnly),
            });
            const toolChars = JSON.stringify(
                tools.map((t) => ({
                    name: t.name,
                    description: t.description,
                    input_schema: t.inputSchema,
                }))
            ).length;
            const prompt = "where is the retry logic?";
            const total = system.length + toolChars + prompt.length;
            console.log(
                `${mode.padEnd(6)} ${String(tools.length).padStart(2)} tools: system ${system.length} + schemas ${toolChars} + prompt ${prompt.length} = ${total} chars ≈ ${Math.round(total / 3.5)} tokens`
            );
        }
    } finally {
        toolset.dispose();
        rmSync(dir, { recursive: true, force: true });
    }
}
