import { describe, expect, it } from "vitest";
import {
    createCommandRegistryWithAllCommands,
    getTokenAtCursor,
    parseCommandInvocations,
    runCommandsInInput,
} from "../../src/commands/index";
import { fakeFront } from "./fake-front";

const registry = createCommandRegistryWithAllCommands();
const parse = (input: string) => parseCommandInvocations(input, (name) => registry.get(name));

/** A chat front whose host answers every op a command here submits. */
function fakeContext() {
    return fakeFront({
        picks: [],
        replies: {
            set_model: ({ name }) =>
                name === "nope"
                    ? { message: 'unknown model "nope". Did you mean: ...', isError: true }
                    : { message: `Model: ${name}` },
            set_mode: ({ mode }) => ({ mode }),
            summarise: () => ({ message: "ok" }),
            resume: ({ id }) =>
                id === "abcdef"
                    ? { message: "no conversation with id abcdef", isError: true }
                    : { message: "ok" },
            export: () => ({ message: "exported" }),
            mcp_servers: () => [{ name: "github", state: "ready", tools: ["mcp__github__search"] }],
            skills: () => [{ name: "release", description: "How to release" }],
        },
    });
}

describe("parseCommandInvocations", () => {
    it("finds registered commands at the start or after whitespace, with their arguments", () => {
        const parsed = parse("/model gpt-5.1 explain the retry logic");
        expect(parsed.invocations).toEqual([
            { name: "model", args: { positional: ["gpt-5.1"], flags: {} }, span: [0, 14] },
        ]);
        expect(parsed.remainingText).toBe("explain the retry logic");
    });

    it("runs several commands in order and cuts all their spans out", () => {
        const parsed = parse("please /mode ask then /summarize --keep-last 5 and go");
        expect(parsed.invocations.map((i) => [i.name, i.args])).toEqual([
            ["mode", { positional: ["ask"], flags: {} }],
            ["summarize", { positional: [], flags: { "keep-last": "5" } }],
        ]);
        expect(parsed.remainingText).toBe("please then and go");
    });

    it("keeps paths, URLs and unknown /words as text", () => {
        for (const text of [
            "look at src/app.ts",
            "see http://x/y now",
            "/etc/passwd is a file",
            "a/model b",
            "/unknown thing",
        ]) {
            const parsed = parse(text);
            expect(parsed.invocations).toEqual([]);
            expect(parsed.remainingText).toBe(text);
        }
    });

    it("stops arguments at the next command, keeps quoted whitespace, and reads short flags", () => {
        const parsed = parse('/export "my notes.md" /summarize -k 3');
        expect(parsed.invocations.map((i) => i.args)).toEqual([
            { positional: ["my notes.md"], flags: {} },
            { positional: [], flags: { "keep-last": "3" } },
        ]);
        expect(parsed.remainingText).toBe("");
    });

    it("reports an unbalanced quote instead of guessing", () => {
        const parsed = parse('/export "unclosed name');
        expect(parsed.invocations[0]!.error).toContain("unbalanced quote");
    });

    it("finds the token under the cursor for autocomplete", () => {
        expect(getTokenAtCursor("hello /mo", 9)).toEqual({ token: "/mo", start: 6, end: 9 });
        expect(getTokenAtCursor("see @src/a", 7)).toEqual({ token: "@src/a", start: 4, end: 10 });
        expect(getTokenAtCursor("a  b", 2)).toBeNull();
    });
});

describe("running commands", () => {
    it("an input made only of commands leaves nothing for the model", async () => {
        const ctx = fakeContext();
        const { executed, remainingText } = await runCommandsInInput(
            "/mode agent /model sonnet-4-5",
            registry,
            ctx.front
        );
        expect(remainingText).toBe("");
        expect(executed.map((e) => e.name)).toEqual(["mode", "model"]);
        expect(ctx.calls()).toEqual(["set_mode agent", "set_model sonnet-4-5"]);
    });

    it("reports bad values clearly and changes nothing", async () => {
        const ctx = fakeContext();
        const cases: Array<[string, string]> = [
            ["/mode loud", 'unknown mode "loud"'],
            ["/summarize --keep-last abc", "--keep-last needs a whole number"],
            ["/model nope", "unknown model"],
            ["/resume abcdef", "no conversation with id abcdef"],
            ['/export "x', "unbalanced quote"],
            ["/resume", "needs a conversation id"],
        ];
        for (const [input, message] of cases) {
            const { executed } = await runCommandsInInput(input, registry, ctx.front);
            expect(executed[0]!.result.isError, input).toBe(true);
            expect(executed[0]!.result.message, input).toContain(message);
        }
        expect(ctx.calls()).toEqual(["set_model nope", "resume abcdef"]);
    });

    it("/mcp and /skills list what the setup brings", async () => {
        const mcp = await runCommandsInInput("/mcp", registry, fakeContext().front);
        expect(mcp.executed[0]!.result.message).toContain("github: ready\n  mcp__github__search");
        const skills = await runCommandsInInput("/skills", registry, fakeContext().front);
        expect(skills.executed[0]!.result.message).toBe("release: How to release");
    });

    it("/help lists every command with its usage", async () => {
        const { executed } = await runCommandsInInput("/help", registry, fakeContext().front);
        for (const name of [
            "quit",
            "new",
            "help",
            "model",
            "mode",
            "summarize",
            "costs",
            "learn",
            "conversations",
            "resume",
            "export",
        ]) {
            expect(executed[0]!.result.message).toContain(`/${name}`);
        }
    });
});
