/**
 * The lsp tools through the built CLI in print mode, with the real
 * typescript-language-server: offered from the first request in a trusted
 * project where the server is found, answering a definition, and a rename
 * applied as a reviewed edit (`--allow-edits`); in an untrusted project
 * neither tool is offered and `/lsp` says why.
 */
import { readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeLlmServer, startFakeLlmServer } from "../kit/fake-llm-server";
import { isolatedHome, runNorth } from "../kit/run-north";
import { writeFixtureProject } from "../tools/lsp/fixture-projects";

const BIN = fileURLToPath(new URL("../../node_modules/.bin", import.meta.url));
/** Servers start cold on a shared machine; no duration is asserted. */
const TEST_TIMEOUT_MS = 120_000;

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
    repo = realpathSync(writeFixtureProject("ts"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = {
        ...isolated.env,
        // North's devDependency stands in for an installed typescript-language-server.
        PATH: [BIN, process.env.PATH ?? ""].join(delimiter),
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    };
    server.requests.length = 0;
});
afterEach(() => {
    expect(server.remaining()).toBe(0);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const offered = (request: number): string[] =>
    (server.requests[request]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);

/** The tool results the model received in request `request`. */
function toolResults(request: number): string[] {
    const body = server.requests[request]!.body as { messages: Array<{ content: unknown }> };
    return body.messages.flatMap((message) =>
        Array.isArray(message.content)
            ? (message.content as Array<Record<string, unknown>>)
                  .filter((block) => block.type === "tool_result")
                  .map((block) =>
                      typeof block.content === "string"
                          ? block.content
                          : JSON.stringify(block.content)
                  )
            : []
    );
}

describe("the lsp tools in print mode", () => {
    it(
        "answers a definition from the real server and applies a rename across files",
        async () => {
            server.enqueue(
                {
                    toolCalls: [
                        {
                            id: "d1",
                            name: "lsp",
                            input: {
                                operation: "definition",
                                path: "main.ts",
                                line: 3,
                                symbol: "greet",
                            },
                        },
                    ],
                },
                {
                    toolCalls: [
                        {
                            id: "r1",
                            name: "lsp_rename",
                            input: {
                                path: "greet.ts",
                                line: 1,
                                symbol: "greet",
                                new_name: "welcome",
                            },
                        },
                    ],
                },
                { text: "Renamed." }
            );
            const run = await runNorth(["-p", "rename greet", "--path", repo, "--allow-edits"], {
                env,
            });
            expect(run.stderr).toBe("");
            expect(run.code).toBe(0);
            expect(offered(0)).toEqual(expect.arrayContaining(["lsp", "lsp_rename"]));
            const [definition] = toolResults(1);
            expect(JSON.parse(definition!)).toEqual({
                definitions: [
                    {
                        path: "greet.ts",
                        line: 1,
                        column: 17,
                        text: "export function greet(name: string): string {",
                    },
                ],
            });
            expect(toolResults(2)[1]).toContain('"applied":true');
            expect(readFileSync(join(repo, "main.ts"), "utf8")).toBe(
                'import { welcome } from "./greet";\n\nexport const message: string = welcome("North");\n'
            );
        },
        TEST_TIMEOUT_MS
    );

    it(
        "offers neither tool in an untrusted project, and /lsp says servers need trust",
        async () => {
            // A project MCP server makes the project one that must be trusted first (print mode does not).
            writeFileSync(
                join(repo, ".mcp.json"),
                JSON.stringify({ mcpServers: { local: { command: "true" } } })
            );
            server.enqueue({ text: "ok" });
            const run = await runNorth(["-p", "hello", "--path", repo], { env });
            expect(run.code).toBe(0);
            expect(offered(0).filter((name) => name.startsWith("lsp"))).toEqual([]);
            const listing = await runNorth(["-p", "/lsp", "--path", repo], { env });
            expect(listing.stdout).toContain("typescript: disabled: project not trusted");
            expect(listing.stdout).toContain("servers start only in a trusted project");
        },
        TEST_TIMEOUT_MS
    );
});
