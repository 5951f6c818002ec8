/**
 * Slash commands, modes, plan review and the learning question end to end:
 * the built `north` in a real pty, the model a fake server.
 * Needs `npm run build` first.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createProfileStore } from "../../../src/storage/profile";
import {
    LEARNING_READY,
    type NorthPtySession,
    REVIEW_READY,
    startNorthSession,
} from "../../kit/pty";

const TIMEOUT = 40_000;

let session: NorthPtySession | undefined;
afterEach(async () => {
    await session?.dispose();
    session = undefined;
});

interface RequestBody {
    model?: string;
    system?: unknown;
    tools?: Array<{ name: string }>;
    messages?: unknown[];
}

const bodyOf = (s: NorthPtySession, index: number): RequestBody =>
    (s.server.requests[index]?.body ?? {}) as RequestBody;

/** The bottom non-empty row: the status line. */
const statusLine = (s: NorthPtySession): string =>
    s.north
        .screenText()
        .split("\n")
        .findLast((row) => row.trim() !== "") ?? "";

describe("slash commands in the interactive app", () => {
    it(
        "/model haiku-4-5 switches the model of the next request, saves it and shows it",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, env } = session;
            await submit("/model haiku-4-5");
            await north.waitForText("Switched to");
            await north.waitFor(
                () => statusLine(session!).includes("Claude Haiku 4.5"),
                10_000,
                "the status line to show haiku"
            );
            expect(server.requests).toHaveLength(0);
            server.enqueue({ text: "Haiku here." });
            await submit("who are you?");
            await north.waitForText("Haiku here.");
            expect(bodyOf(session, 0).model).toBe("claude-haiku-4-5-20251001");
            const config = JSON.parse(
                readFileSync(join(env.NORTH_CONFIG_DIR!, "config.json"), "utf8")
            ) as { selectedModel?: string };
            expect(config.selectedModel).toBe("haiku-4-5");
        },
        TIMEOUT
    );

    it(
        "/model with an unknown alias lists close aliases and switches nothing",
        async () => {
            session = await startNorthSession();
            const { north, submit } = session;
            await submit("/model haiku-45");
            await north.waitForText("Did you mean");
            expect(north.screenText()).toContain("haiku-4-5");
            expect(statusLine(session)).toContain("Claude Opus 5.5");
            expect(existsSync(join(session.env.NORTH_CONFIG_DIR!, "config.json"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "/mode ask offers only read-only tools to the next request",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            await submit("/mode ask");
            await north.waitForText("Mode: ask.");
            await north.waitFor(() => / ask /.test(statusLine(session!)), 5_000, "ask in status");
            server.enqueue({ text: "Just looking." });
            await submit("look around");
            await north.waitForText("Just looking.");
            const tools = (bodyOf(session, 0).tools ?? []).map((t) => t.name);
            expect(tools).toContain("read_file");
            expect(tools).not.toContain("shell_run");
            expect(tools.some((name) => name.startsWith("edit_"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "/help lists the commands without calling the model",
        async () => {
            // Tall enough for the whole list on one screen.
            session = await startNorthSession({
                files: { ".north/commands/audit.md": "Review $ARGUMENTS carefully." },
                rows: 70,
            });
            const { north, server, submit } = session;
            await submit("/help");
            await north.waitForText("/summarize [--keep-last N]");
            const screen = north.screenText();
            for (const usage of [
                "/model [alias]",
                "/mode [ask|agent|accept-edits|plan]",
                "/export [file]",
            ]) {
                expect(screen).toContain(usage);
            }
            expect(screen).toContain("/audit");
            // Input is handled in order: once a later prompt is answered, /help had its chance.
            server.enqueue({ text: "Answered after the help." });
            await submit("and now a question");
            await north.waitForText("Answered after the help.");
            expect(server.requests).toHaveLength(1);
        },
        TIMEOUT
    );

    it(
        "a custom command sends its expanded prompt",
        async () => {
            session = await startNorthSession({
                files: { ".north/commands/audit.md": "Review $ARGUMENTS carefully." },
            });
            const { north, server, submit } = session;
            server.enqueue({ text: "Reviewed." });
            await submit("/audit src/app.ts");
            await north.waitForText("Reviewed.");
            expect(JSON.stringify(bodyOf(session, 0).messages)).toContain(
                "Review src/app.ts carefully."
            );
        },
        TIMEOUT
    );

    it(
        "/export writes the conversation as Markdown in North's data folder, or at a path in the project",
        async () => {
            session = await startNorthSession();
            const { north, server, submit, repo, env } = session;
            server.enqueue({ text: "The answer is forty-two." });
            await submit("what is the answer?");
            await north.waitForText("The answer is forty-two.");
            await submit("/export");
            await north.waitForText("Exported the conversation to");
            const exports = join(env.NORTH_DATA_DIR!, "exports", basename(repo));
            const files = readdirSync(exports).filter((f) => /^north-[0-9a-f]{6}\.md$/.test(f));
            expect(files).toHaveLength(1);
            expect(readdirSync(repo).filter((f) => f.startsWith("north-"))).toEqual([]);
            const markdown = readFileSync(join(exports, files[0]!), "utf8");
            expect(markdown).toContain("## User\n\nwhat is the answer?");
            expect(markdown).toContain("## Assistant\n\nThe answer is forty-two.");
            expect(server.requests).toHaveLength(1);

            await submit("/export notes/log.md");
            await north.waitForText("Exported the conversation to notes/log.md");
            expect(readFileSync(join(repo, "notes", "log.md"), "utf8")).toContain("forty-two");

            await submit("/export ../outside.md");
            await north.waitForText("Paths must stay inside the project");
            expect(existsSync(join(repo, "..", "outside.md"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "a plan rejected with feedback sends the feedback back to the model",
        async () => {
            session = await startNorthSession();
            const { north, server, submit } = session;
            await submit("/mode plan");
            await north.waitForText("Mode: plan.");
            server.enqueue(
                {
                    toolCalls: [
                        {
                            name: "propose_plan",
                            input: { plan: "# Plan\n\n1. Rewrite the build in **make**" },
                        },
                    ],
                },
                { text: "Understood, a new plan follows." }
            );
            await submit("speed up the build");
            await north.waitForText("Proposed plan");
            expect(north.screenText()).toContain("Rewrite the build in make");
            expect(bodyOf(session, 0).tools?.map((t) => t.name)).toContain("propose_plan");
            await north.waitForText(REVIEW_READY);
            north.type("\x1b");
            await north.waitForText("what instead?");
            north.type("keep npm scripts");
            await north.waitForText("keep npm scripts");
            north.type("\r");
            await north.waitForText("Understood, a new plan follows.");
            expect(session.lastRequest()).toContain("keep npm scripts");
            expect(north.screenText()).toContain("Rejected");
        },
        TIMEOUT
    );
});

describe("project learning at the first start", () => {
    it(
        "asks, and n writes declined.json",
        async () => {
            session = await startNorthSession({ learningPrompt: true });
            const { north, server, repo, env } = session;
            await north.waitForText("Learn this project?");
            await north.waitForText(LEARNING_READY);
            north.type("n");
            await north.waitForText("will not ask again");
            const profiles = createProfileStore(env.NORTH_DATA_DIR!, realpathSync(repo));
            expect(profiles.hasDeclined()).toBe(true);
            expect(existsSync(join(profiles.dir, "declined.json"))).toBe(true);
            expect(server.requests).toHaveLength(0);
        },
        TIMEOUT
    );

    it(
        "y learns the project, saves the profile and sends it with the next request",
        async () => {
            session = await startNorthSession({ learningPrompt: true });
            const { north, server, repo, env, submit } = session;
            for (let i = 1; i <= 10; i++) server.enqueue({ text: `- Fact number ${i}.` });
            await north.waitForText("Learn this project?");
            await north.waitForText(LEARNING_READY);
            north.type("y");
            await north.waitForText("Learned 10 of 10 topics", 30_000);
            const profiles = createProfileStore(env.NORTH_DATA_DIR!, realpathSync(repo));
            expect(profiles.loadProfile()).toContain("Fact number 7.");
            // Learning offers read-only tools only.
            const tools = (bodyOf(session, 0).tools ?? []).map((t) => t.name);
            expect(tools).not.toContain("shell_run");
            server.enqueue({ text: "I know this project." });
            await submit("what is this?");
            await north.waitForText("I know this project.");
            expect(JSON.stringify(bodyOf(session, 10).system)).toContain("Fact number 3.");
        },
        TIMEOUT
    );
});
