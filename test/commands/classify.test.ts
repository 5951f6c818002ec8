import { describe, expect, it } from "vitest";
import {
    BARE_SHELL_HINT,
    BARE_SLASH_HINT,
    classifyInput,
    commandNamesOf,
    createCommandRegistryWithAllCommands,
    namesSource,
} from "../../src/commands/index";

const registry = createCommandRegistryWithAllCommands();
const known = commandNamesOf(
    registry,
    namesSource(() => ["pdf-tools"]),
    namesSource(() => ["acme:deploy"])
);

describe("what a message's first word makes of it", () => {
    it.each([
        ["explain this", { kind: "text" }],
        ["/etc/hosts is missing", { kind: "text" }],
        ["/usr/lib/x.so: error while loading", { kind: "text" }],
        ["//path/to/thing", { kind: "text" }],
        ["/tmp/x.log has it", { kind: "text" }],
        ["/v1.2 release notes", { kind: "text" }],
        ["/ then some words", { kind: "text" }],
        ["explain /model x", { kind: "text" }],
        ["/help", { kind: "command", name: "help" }],
        ["  /model haiku-4-5 and then", { kind: "command", name: "model" }],
        ["/clear", { kind: "command", name: "clear" }],
        ["/compact --keep-last 2", { kind: "command", name: "compact" }],
        ["/pdf-tools read the spec", { kind: "command", name: "pdf-tools" }],
        ["/acme:deploy staging", { kind: "command", name: "acme:deploy" }],
        ["!ls -la", { kind: "shell", command: "ls -la" }],
        ["  ! git status  ", { kind: "shell", command: "git status" }],
    ])("%j", (input, expected) => {
        expect(classifyInput(input, known)).toEqual(expected);
    });

    it.each([
        ["/", BARE_SLASH_HINT],
        ["/   ", BARE_SLASH_HINT],
        ["!", BARE_SHELL_HINT],
        ["  !   ", BARE_SHELL_HINT],
    ])("%j is a hint, not a prompt", (input, hint) => {
        expect(classifyInput(input, known)).toEqual({ kind: "refused", message: hint });
    });

    it("an unknown command names the closest ones and is not sent", () => {
        const kind = classifyInput("/clera the screen", known);
        expect(kind).toEqual({
            kind: "refused",
            message: expect.stringContaining("unknown command /clera — did you mean /clear"),
        });
        expect((kind as { message: string }).message).toContain("Nothing was sent.");
    });

    it("an unknown command with nothing close says /help lists them", () => {
        const kind = classifyInput("/zzzzzzzzzzzz", known);
        expect(kind).toEqual({
            kind: "refused",
            message: "unknown command /zzzzzzzzzzzz — /help lists the commands. Nothing was sent.",
        });
    });

    it("a mistyped plugin command suggests the plugin's", () => {
        const kind = classifyInput("/acme:deplyo", known);
        expect((kind as { message: string }).message).toContain("did you mean /acme:deploy?");
    });
});

describe("aliases", () => {
    it("/clear runs /new and /compact runs /summarize", () => {
        expect(registry.get("clear")?.name).toBe("new");
        expect(registry.get("compact")?.name).toBe("summarize");
        expect(registry.names()).toEqual(expect.arrayContaining(["clear", "compact", "new"]));
        // The list holds each command once.
        expect(registry.list().filter((c) => c.name === "new")).toHaveLength(1);
    });
});
