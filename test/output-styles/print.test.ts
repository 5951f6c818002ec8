/**
 * Output styles in print mode, the built `north` against the fake model:
 * `/output-style NAME` before a prompt applies to that run's requests (and
 * is not saved: a script does not change the user's settings), the
 * `outputStyle` setting selects a user's style from `~/.claude/output-styles`,
 * and a project's styles count only when the project is trusted (a saved
 * name that is not available falls back to default with a notice).
 * Needs `node scripts/build.mjs` first.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

const TIMEOUT = 60_000;
let server: FakeLlmServer;
let home: string;
let env: NodeJS.ProcessEnv;
let repo: string;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server?.close();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function setUp(files: Record<string, string> = {}): void {
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    repo = join(home, "repo");
    mkdirSync(repo);
    for (const [path, text] of Object.entries(files)) {
        const at = path.startsWith("~/") ? join(home, path.slice(2)) : join(repo, path);
        mkdirSync(dirname(at), { recursive: true });
        writeFileSync(at, text);
    }
}

/** The system prompt of the last request, as sent (Anthropic: text blocks). */
function lastSystem(): string {
    const body = server.requests.at(-1)!.body as { system?: unknown };
    return JSON.stringify(body.system);
}

describe("output styles in print mode", () => {
    it(
        "/output-style concise before the prompt applies to this run and saves nothing",
        async () => {
            setUp();
            server.enqueue({ text: "Short." });
            const run = await runNorth(
                ["-p", "/output-style concise explain retries", "--path", repo],
                {
                    env,
                    cwd: repo,
                }
            );
            expect(run.code).toBe(0);
            expect(run.stdout).toBe("Short.\n");
            expect(run.stderr).toContain(
                "⚙ /output-style concise: Output style concise from the first request on. Not saved (print mode and the Node API do not change your settings)"
            );
            expect(lastSystem()).toContain('<output_style name=\\"concise\\">');
            expect(lastSystem()).toContain("<making_code_changes>");
            expect(existsSync(join(repo, ".north/settings.local.json"))).toBe(false);
        },
        TIMEOUT
    );

    it(
        "/output-style alone lists the styles; an unknown name fails the run and sends nothing",
        async () => {
            setUp({
                "~/data/output-styles/haiku.md":
                    "---\ndescription: Answers in haiku\n---\nWrite haiku.\n",
            });
            const listed = await runNorth(["-p", "/output-style", "--path", repo], {
                env,
                cwd: repo,
            });
            expect(listed.code).toBe(0);
            expect(listed.stdout).toContain(
                "● default (built-in): North's own prompt, nothing added"
            );
            expect(listed.stdout).toContain("  haiku (user): Answers in haiku");
            const before = server.requests.length;
            const unknown = await runNorth(["-p", "/output-style nope hello", "--path", repo], {
                env,
                cwd: repo,
            });
            expect(unknown.code).not.toBe(0);
            expect(unknown.stderr).toContain('no output style "nope"');
            expect(server.requests.length).toBe(before);
        },
        TIMEOUT
    );

    it(
        "the outputStyle setting picks a user's Claude Code style; keep-coding-instructions false drops North's coding sections",
        async () => {
            setUp({
                "~/config/config.json": JSON.stringify({ outputStyle: "mentor" }),
                "~/.claude/output-styles/mentor.md":
                    "---\nname: mentor\ndescription: Teaches\n---\nAsk the user a question first.\n",
            });
            server.enqueue({ text: "Why?" });
            const run = await runNorth(["-p", "hello", "--path", repo], { env, cwd: repo });
            expect(run.stderr).toBe("");
            expect(run.code).toBe(0);
            expect(lastSystem()).toContain("Ask the user a question first.");
            expect(lastSystem()).not.toContain("<making_code_changes>");
            expect(lastSystem()).toContain("<search_and_reading>");
        },
        TIMEOUT
    );

    it(
        "a project's style counts only when the project is trusted; otherwise default with a notice",
        async () => {
            // The style file alone makes the project need trust: it changes the system prompt.
            setUp({
                ".north/output-styles/team.md":
                    "---\nkeep-coding-instructions: true\n---\nSign every answer with TEAM.\n",
                "~/config/config.json": JSON.stringify({ outputStyle: "team" }),
            });
            server.enqueue({ text: "untrusted" }, { text: "trusted" });
            const untrusted = await runNorth(["-p", "hello", "--path", repo], { env, cwd: repo });
            expect(untrusted.code).toBe(0);
            expect(untrusted.stderr).toContain(
                'output style "team" is not available here, so the default applies'
            );
            expect(lastSystem()).not.toContain("TEAM");
            expect(lastSystem()).not.toContain("<output_style");
            const trusted = await runNorth(["-p", "hello", "--path", repo, "--trust"], {
                env,
                cwd: repo,
            });
            expect(trusted.code).toBe(0);
            expect(trusted.stderr).not.toContain("output style");
            expect(lastSystem()).toContain("Sign every answer with TEAM.");
            expect(lastSystem()).toContain("<making_code_changes>");
        },
        TIMEOUT
    );

    it(
        "a subagent's requests keep North's prompt: the style is the main conversation's only",
        async () => {
            setUp({ "app.ts": "export const a = 1;\n" });
            const child = (body: string): boolean => body.includes("TASK-S: look");
            server.enqueue(
                {
                    toolCalls: [
                        {
                            id: "t1",
                            name: "task",
                            input: { description: "survey", prompt: "TASK-S: look" },
                        },
                    ],
                },
                { when: child, text: "The child saw app.ts." },
                { text: "Done." }
            );
            const before = server.requests.length;
            const run = await runNorth(
                ["-p", "/output-style learning survey the app", "--path", repo],
                { env, cwd: repo }
            );
            expect(run.code).toBe(0);
            expect(run.stdout).toBe("Done.\n");
            const systems = server.requests
                .slice(before)
                .map((r) => JSON.stringify((r.body as { system?: unknown }).system));
            expect(systems).toHaveLength(3);
            const [main, sub, last] = systems as [string, string, string];
            expect(main).toContain('<output_style name=\\"learning\\">');
            expect(last).toBe(main);
            expect(sub).not.toContain("output_style");
            expect(JSON.stringify(server.requests[before + 1]!.body)).toContain("TASK-S: look");
        },
        TIMEOUT
    );
});
