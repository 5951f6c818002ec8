/**
 * A print-mode prompt (argument or piped stdin) larger than the model's
 * context window is refused before any request, with nothing saved; large
 * piped diffs below the window still run. Needs `npm run build` first.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";

let server: FakeLlmServer;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    server = await startFakeLlmServer();
});
afterAll(async () => {
    await server.close();
});
beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), "north-prompt-size-"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.anthropicBaseUrl };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

/** A unified diff of about `bytes` bytes, its last line marked. */
function diffOf(bytes: number): string {
    const hunk = "@@ -1,3 +1,3 @@\n context line\n-const retries = 3;\n+const retries = 5;\n";
    return `diff --git a/app.ts b/app.ts\n${hunk.repeat(Math.ceil(bytes / hunk.length))}+// END-OF-DIFF\n`;
}

/** Adds a model of Claude's with a larger (or smaller) window, as a user would configure it. */
function configureModel(alias: string, contextLimitTokens: number): void {
    mkdirSync(env.NORTH_CONFIG_DIR!, { recursive: true });
    writeFileSync(
        join(env.NORTH_CONFIG_DIR!, "config.json"),
        JSON.stringify({
            models: [
                {
                    alias,
                    id: "claude-sonnet-4-5-20250929",
                    provider: "anthropic",
                    contextLimitTokens,
                },
            ],
        })
    );
}

const savedConversations = (): string[] => {
    const dir = join(home, "data", "conversations");
    return existsSync(dir) ? readdirSync(dir) : [];
};

describe("print-mode prompt size", () => {
    it("refuses a piped diff larger than the model's window: no request, nothing saved, exit 2", async () => {
        const run = await runNorth(["-p", "review this diff", "--path", repo], {
            env,
            // Over the default Opus 5.5's 1M-token window.
            input: diffOf(4 * 1024 * 1024),
        });
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(
            /^north: the prompt is about \d+ tokens \(4 MB\), more than opus[^ ]*'s 1000000-token context window; nothing was sent or saved/
        );
        expect(run.stdout).toBe("");
        expect(server.requests).toHaveLength(0);
        expect(savedConversations()).toEqual([]);
    });

    it("refuses a -p argument larger than a small model's window", async () => {
        configureModel("tiny", 8_000);
        const run = await runNorth(
            ["-p", `explain ${"word ".repeat(8_000)}`, "--path", repo, "--model", "tiny"],
            {
                env,
            }
        );
        expect(run.code).toBe(2);
        expect(run.stderr).toContain("more than tiny's 8000-token context window");
        expect(server.requests).toHaveLength(0);
        expect(savedConversations()).toEqual([]);
    });

    it("runs a 400 KB piped diff on the default model, the whole diff sent", async () => {
        server.enqueue({ text: "Looks fine." });
        const run = await runNorth(["-p", "review this diff", "--path", repo], {
            env,
            input: diffOf(400 * 1024),
        });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Looks fine.\n");
        expect(JSON.stringify(server.requests[0]!.body)).toContain("END-OF-DIFF");
    });

    it("runs a 1 MB piped diff on a model whose window holds it", async () => {
        configureModel("sonnet-1m", 1_000_000);
        server.enqueue({ text: "Reviewed." });
        const run = await runNorth(
            ["-p", "review this diff", "--path", repo, "--model", "sonnet-1m"],
            {
                env,
                input: diffOf(1024 * 1024),
            }
        );
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Reviewed.\n");
        expect(JSON.stringify(server.requests[0]!.body)).toContain("END-OF-DIFF");
    });
});
