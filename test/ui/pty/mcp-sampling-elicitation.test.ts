/**
 * An MCP server asks the user through the chat: a form (elicitation) filled
 * in and sent, or declined with Esc; a sampling request approved (the model
 * answers it and the tool result carries the answer) or denied.
 * Needs `npm run build` first.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { answerReview, FORM_READY, type NorthPtySession, startNorthSession } from "../../kit/pty";

const TIMEOUT = 60_000;
const FIXTURE = fileURLToPath(
    new URL("../../tools/mcp/fixtures/client-features-server.mjs", import.meta.url)
);
/** Created in the project (the server's working directory) once the server listed its tools. */
const LISTED = "tools-listed";
const MCP_JSON = JSON.stringify({
    mcpServers: {
        feat: {
            command: process.execPath,
            args: [FIXTURE],
            env: { MCP_FIXTURE_LISTED_FILE: LISTED },
        },
    },
});

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

/** The request numbered `index` as text, unescaped: JSON inside the tool result reads as written. */
function toolResultOf(s: NorthPtySession, index: number): string {
    return JSON.stringify(s.server.requests[index]?.body ?? null).replaceAll("\\", "");
}

/** North, once the MCP server's tools are listed (asked through /mcp until it says ready). */
async function startWithServer(): Promise<NorthPtySession> {
    const s = await startNorthSession({ files: { ".mcp.json": MCP_JSON }, args: ["--trust"] });
    // Asking before the server answered the tool listing would only fill the screen.
    await s.north.waitFor(
        () => existsSync(join(s.repo, LISTED)),
        15_000,
        "the MCP server listing its tools"
    );
    const states = (): string[] => s.north.screenText().match(/feat: [a-z]+/g) ?? [];
    for (let attempt = 0; attempt < 10; attempt++) {
        const before = states().length;
        await s.submit("/mcp");
        await s.north.waitFor(() => states().length > before, 15_000, "the /mcp listing");
        if (states().at(-1) === "feat: ready") return s;
    }
    throw new Error(`the MCP server never became ready; screen:\n${s.north.screenText()}`);
}

/** Approves the MCP tool call itself (MCP tools are reviewed like commands). */
async function runTool(s: NorthPtySession): Promise<void> {
    await s.north.waitForText("Call this tool?");
    await answerReview(s.north, { option: 1 });
}

describe("MCP elicitation and sampling in the chat", () => {
    it(
        "sends a filled-in form and an approved sampling answer back to the server",
        async () => {
            session = await startWithServer();
            const s = session;
            s.server.enqueue(
                { toolCalls: [{ name: "mcp__feat__elicit_form", input: {} }] },
                {
                    toolCalls: [
                        {
                            name: "mcp__feat__sample",
                            input: { prompt: "Name a colour", maxTokens: 1_000_000_000 },
                        },
                    ],
                },
                { text: "teal from the model" },
                { text: "All done." }
            );
            await s.submit("deploy it");
            await runTool(s);
            await s.north.waitForText("Set up the deploy");
            const form = s.north.screenText();
            expect(form).toContain("Name *:");
            expect(form).toContain("replicas *: 2");
            expect(form).toContain("‹ eu ›");
            expect(form).toContain("[x] yes");
            await s.north.waitForText(FORM_READY);
            // Submitting with the required name empty keeps the form open with the reason.
            s.north.type("\r");
            await s.north.waitForText("✗ required");
            s.north.type("web");
            await s.north.waitForText("Name *: web");
            s.north.type("\r");

            await runTool(s);
            await s.north.waitForText("asks to use the model");
            expect(s.north.screenText()).toContain("user: Name a colour");
            expect(s.north.screenText()).toContain("(it asked for 1000000000)");
            expect(s.north.screenText()).toContain(
                "1. Yes, run this one request through the model"
            );
            await answerReview(s.north, { option: 1 });
            await s.north.waitForText("All done.");

            expect(toolResultOf(s, 1)).toContain(
                '{"action":"accept","content":{"name":"web","replicas":2,"region":"eu","dryRun":true}}'
            );
            // The sampling request: the server's message, no tools, the capped token count.
            const sampling = s.server.requests[2]!.body as Record<string, unknown>;
            expect(sampling.messages).toMatchObject([
                { role: "user", content: [{ type: "text", text: "Name a colour" }] },
            ]);
            expect(sampling.tools ?? []).toEqual([]);
            expect(sampling.max_tokens).toBe(4096);
            expect(toolResultOf(s, 3)).toContain("teal from the model");
        },
        TIMEOUT
    );

    it(
        "declines the form with Esc and denies sampling with its No, and the run goes on",
        async () => {
            session = await startWithServer();
            const s = session;
            s.server.enqueue(
                { toolCalls: [{ name: "mcp__feat__elicit_form", input: {} }] },
                { toolCalls: [{ name: "mcp__feat__sample", input: {} }] },
                { text: "Understood." }
            );
            await s.submit("deploy it");
            await runTool(s);
            await s.north.waitForText("Set up the deploy");
            await s.north.waitForText(FORM_READY);
            s.north.type("\x1b");
            await runTool(s);
            await s.north.waitForText("asks to use the model");
            // d denied here once; now only the menu answers.
            await answerReview(s.north, { option: 2 });
            await s.north.waitForText("Understood.");
            expect(toolResultOf(s, 1)).toContain('{"action":"decline"}');
            expect(toolResultOf(s, 2)).toContain(
                "sampling failed: MCP error -1: the user denied the sampling request"
            );
            // Only the three scripted turns: the denied request never reached the model.
            expect(s.server.requests).toHaveLength(3);
        },
        TIMEOUT
    );

    it(
        "closes the form when the server gives up on it",
        async () => {
            session = await startWithServer();
            const s = session;
            s.server.enqueue(
                { toolCalls: [{ name: "mcp__feat__elicit_form", input: { timeoutMs: 3000 } }] },
                { text: "It timed out." }
            );
            await s.submit("deploy it");
            await runTool(s);
            await s.north.waitForText("Set up the deploy");
            await s.north.waitForText("It timed out.", 30_000);
            expect(s.north.screenText()).not.toContain("[Enter] submit");
            expect(toolResultOf(s, 1)).toContain("Request timed out");
        },
        TIMEOUT
    );
});
