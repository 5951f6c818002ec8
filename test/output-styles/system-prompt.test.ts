/**
 * A style in the system prompt: after North's own instructions (and any
 * appended prompt), before the rules; `keep-coding-instructions: false`
 * drops North's coding sections; the prompt is fixed for a conversation
 * (byte-identical from request to request) and changes only when the style
 * is set "now"; the selection's replies say when a pick applies.
 */
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { OutputStyleSelection } from "../../src/agent/host/output-styles";
import type { AppliedOutputStyle } from "../../src/agent/prompt-blocks";
import { AgentSession, type ToolRunner } from "../../src/agent/session";
import { CODING_SECTIONS } from "../../src/agent/system-prompt";
import { discoverOutputStyles } from "../../src/project/output-styles";
import { BUILTIN_MODELS } from "../../src/providers/catalogue";
import type { AnyToolDefinition } from "../../src/tools/types";
import { toolInput } from "../../src/tools/tool-input";
import { ScriptedProvider, type ScriptedReply, call, text } from "../kit/scripted-provider";

const sonnet = BUILTIN_MODELS.find((m) => m.alias === "sonnet-4")!;

const writeTool: AnyToolDefinition = {
    name: "touch",
    description: "a write tool (so North's editing guidance is in the prompt)",
    input: toolInput((z) => z.object({}).passthrough()),
    approvalPolicy: "write",
    readOnly: false,
    execute: () => Promise.resolve({ ok: true, data: {} }),
};

const tools: ToolRunner = {
    list: () => [writeTool],
    schemas: () => [{ name: "touch", description: "t", inputSchema: {} }],
    execute: () => Promise.resolve({ ok: true, data: {} }),
};

const PIRATE: AppliedOutputStyle = {
    name: "pirate",
    prompt: "Talk like a pirate.",
    keepCodingInstructions: false,
};
const TEACHER: AppliedOutputStyle = {
    name: "teacher",
    prompt: "Explain each step.",
    keepCodingInstructions: true,
};

function makeSession(
    replies: ScriptedReply[],
    outputStyle?: (final: boolean) => AppliedOutputStyle | undefined
) {
    const provider = new ScriptedProvider(replies);
    const session = new AgentSession({
        sessionId: "s1",
        repoRoot: realpathSync(tmpdir()),
        model: sonnet,
        providerFor: async () => provider,
        tools,
        approver: async () => ({ outcome: "approve" }),
        appendSystemPrompt: "APPENDED BY FLAG",
        context: { rules: "# Rules\n\nUse tabs.", memory: "# Memory\n\nA note." },
        outputStyle,
    });
    return { session, provider };
}

const toolTurn = (id: string): ScriptedReply => ({ blocks: [call(id, "touch", {})] });
const answer = (value: string): ScriptedReply => ({ blocks: [text(value)] });

describe("the output style in the system prompt", () => {
    it("sits after North's prompt and the appended one, before the rules; fixed for the conversation", async () => {
        let asked = 0;
        const { session, provider } = makeSession(
            [
                toolTurn("a"),
                answer("one"),
                toolTurn("b"),
                toolTurn("c"),
                answer("two"),
                answer("three"),
            ],
            () => {
                asked++;
                return asked === 1 ? PIRATE : TEACHER;
            }
        );
        await session.run("first", { mode: "agent" });
        await session.run("second", { mode: "agent" });
        // The session's memory changes between runs: only the part after the style moves.
        session.setMemory("# Memory\n\nAnother note.");
        await session.run("third", { mode: "agent" });
        const systems = provider.requests.map((r) => r.system);
        expect(systems).toHaveLength(6);
        expect(asked).toBe(1);
        expect(new Set(systems.slice(0, 5)).size).toBe(1);
        const system = systems[0]!;
        const style = system.indexOf('<output_style name="pirate">');
        expect(style).toBeGreaterThan(system.indexOf("</mode>"));
        expect(style).toBeGreaterThan(system.indexOf("APPENDED BY FLAG"));
        expect(style).toBeLessThan(system.indexOf("# Rules"));
        expect(system).toContain("Talk like a pirate.\n</output_style>");
        // The prefix up to the memory block is byte-identical after the memory changed.
        const prefix = system.slice(0, system.indexOf("# Memory"));
        expect(systems[5]!.startsWith(prefix)).toBe(true);
        expect(session.outputStyleName).toBe("pirate");
    });

    it("keep-coding-instructions false drops exactly North's coding sections; true keeps them", async () => {
        const off = makeSession([answer("x")], () => PIRATE);
        await off.session.run("hi", { mode: "agent" });
        const on = makeSession([answer("x")], () => TEACHER);
        await on.session.run("hi", { mode: "agent" });
        const none = makeSession([answer("x")]);
        await none.session.run("hi", { mode: "agent" });
        const [dropped, kept, plain] = [off, on, none].map(
            (s) => s.provider.requests[0]!.system
        ) as [string, string, string];
        for (const tag of CODING_SECTIONS) {
            expect(dropped).not.toContain(`<${tag}>`);
            expect(kept).toContain(`<${tag}>`);
            expect(plain).toContain(`<${tag}>`);
        }
        for (const tag of [
            "communication",
            "tool_calling",
            "search_and_reading",
            "conversation",
            "mode",
        ]) {
            expect(dropped).toContain(`<${tag}>`);
        }
        // Without a style the prompt is North's as before: no style block.
        expect(plain).not.toContain("<output_style");
        expect(kept.startsWith(plain.slice(0, plain.indexOf("APPENDED BY FLAG")))).toBe(true);
    });

    it("setOutputStyle changes the prompt from the next request on (the cache restarts), then it is fixed again", async () => {
        const { session, provider } = makeSession(
            [answer("1"), answer("2"), answer("3")],
            () => PIRATE
        );
        await session.run("a", { mode: "agent" });
        session.setOutputStyle(TEACHER);
        await session.run("b", { mode: "agent" });
        await session.run("c", { mode: "agent" });
        const [before, after, later] = provider.requests.map((r) => r.system);
        expect(before).toContain("Talk like a pirate.");
        expect(after).not.toBe(before);
        expect(after).toContain('<output_style name="teacher">');
        expect(later).toBe(after);
        session.setOutputStyle(undefined);
        expect(session.outputStyleName).toBeUndefined();
    });
});

describe("OutputStyleSelection", () => {
    function selection(saved: string[], setting?: string) {
        const warnings: string[] = [];
        const picks = new OutputStyleSelection({
            discover: () => discoverOutputStyles({ repoRoot: tmpdir(), project: [], user: [] }),
            setting,
            save: (name) => {
                saved.push(name);
                return { ok: true, path: "/repo/.north/settings.local.json" };
            },
            warn: (w) => warnings.push(w),
        });
        return { picks, warnings };
    }

    it("a missing saved style: default, said once at the first request; a pick before any request applies to the first", async () => {
        const saved: string[] = [];
        const { picks, warnings } = selection(saved, "gone");
        const { session, provider } = makeSession([answer("1")], (final) =>
            picks.forConversation(final)
        );
        expect(picks.listing(session)).toMatchObject({ current: "default" });
        // Before the first request nothing is final (a plugin's style may still load): no notice yet.
        expect(warnings).toEqual([]);
        await session.run("a", { mode: "agent" });
        expect(warnings).toEqual([
            expect.stringContaining('output style "gone" is not available here'),
        ]);
        expect(provider.requests[0]!.system).not.toContain("<output_style");
        const fresh = makeSession([answer("1")], (final) => picks.forConversation(final));
        const reply = picks.set(fresh.session, "concise", false);
        expect(reply.message).toBe(
            "Output style concise from the first request on. Saved in /repo/.north/settings.local.json."
        );
        await fresh.session.run("a", { mode: "agent" });
        expect(fresh.provider.requests[0]!.system).toContain('<output_style name="concise">');
        expect(saved).toEqual(["concise"]);
        expect(warnings).toHaveLength(1);
    });

    it("after a request: a pick applies to the next conversation, or now with the cache note", async () => {
        const { picks } = selection([], "concise");
        const { session, provider } = makeSession([answer("1"), answer("2")], (final) =>
            picks.forConversation(final)
        );
        await session.run("a", { mode: "agent" });
        const later = picks.set(session, "learning", false);
        expect(later.message).toContain(
            "from the next conversation (/new); this one keeps concise"
        );
        expect(picks.listing(session)).toMatchObject({ current: "concise", next: "learning" });
        const listed = picks.listing(session).styles.find((s) => s.name === "concise");
        expect(listed).toMatchObject({ active: true, source: "built-in" });
        const now = picks.set(session, "Learning", true);
        expect(now.message).toContain("the prompt cache starts again");
        await session.run("b", { mode: "agent" });
        expect(provider.requests[1]!.system).toContain('<output_style name="learning">');
        expect(picks.set(session, "nope", true)).toEqual({
            message: 'no output style "nope"; /output-style lists them',
            isError: true,
        });
    });
});
