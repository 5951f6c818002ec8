import { describe, expect, it } from "vitest";
import type { Mode } from "../../src/agent/events";
import { PROPOSE_PLAN_SCHEMA } from "../../src/agent/plan";
import { buildSystemPrompt } from "../../src/agent/system-prompt";
import { createBuiltinTools, createToolRegistry } from "../../src/tools/index";
import type { ShellService } from "../../src/tools/shell-service";

const registry = createToolRegistry(
    createBuiltinTools({ expandOutput: () => undefined, shell: {} as ShellService })
);

/** The system prompt and tool schemas of a run's first request, as the session builds them. */
function firstRequest(mode: Mode) {
    const schemas = registry.schemas((tool) => mode !== "ask" || tool.readOnly);
    if (mode === "plan") schemas.push(PROPOSE_PLAN_SCHEMA);
    const tools = registry.list().filter((tool) => mode !== "ask" || tool.readOnly);
    const system = buildSystemPrompt({ repoRoot: "/repo", mode, tools });
    return { system, size: system.length + JSON.stringify(schemas).length };
}

/**
 * Characters of system prompt + tool schemas, today's size + 10 %. Measured
 * when set: agent 15,746, ask 7,931, plan 16,232. Raising a budget is a
 * decision about every request's cost, not a test fix.
 */
const BUDGET: Record<Exclude<Mode, "accept-edits">, number> = {
    agent: 17_300,
    ask: 8_700,
    plan: 17_900,
};

describe("system prompt per mode", () => {
    for (const mode of ["agent", "ask", "plan"] as const) {
        const { system, size } = firstRequest(mode);
        it(`${mode}: ${system.length} characters; with tool schemas ${size} of ${BUDGET[mode]}`, () => {
            expect(system).toMatchSnapshot();
            expect(size).toBeLessThanOrEqual(BUDGET[mode]);
        });
    }

    it("accept-edits sends agent's prompt and tools, so switching keeps the prompt cache", () => {
        expect(firstRequest("accept-edits")).toEqual(firstRequest("agent"));
    });

    it("ask mode, without edit tools or commands, describes neither", () => {
        const { system } = firstRequest("ask");
        expect(system).not.toMatch(/NORTH_FILE|edit_|edit\b|reviews every write|commands run/);
        expect(system).toContain("Gather in 1-2 rounds, then answer.");
        expect(system).toContain("<search_and_reading>");
    });

    it("agent and plan mode describe editing, NORTH_FILE and commands", () => {
        for (const mode of ["agent", "plan"] as const) {
            const { system } = firstRequest(mode);
            expect(system).toContain('<NORTH_FILE path="rel/path">');
            expect(system).toContain("Gather in 1-2 rounds, then edit.");
            expect(system).toContain("<long_running_commands>");
        }
    });

    it("reads the tool list, not the mode: agent mode with read tools only drops editing", () => {
        const readOnly = registry.list().filter((tool) => tool.readOnly);
        const system = buildSystemPrompt({
            repoRoot: "/repo",
            mode: "agent",
            tools: readOnly,
        });
        expect(system).not.toContain("NORTH_FILE");
        expect(system).not.toContain("<long_running_commands>");
    });
});
