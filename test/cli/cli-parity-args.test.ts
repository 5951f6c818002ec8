import { describe, expect, it } from "vitest";
import { type CliArgs, HELP_TEXT, parseCliArgs } from "../../src/cli/args";

function args(argv: string[]): CliArgs {
    const parsed = parseCliArgs(argv);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.args;
}
function error(argv: string[]): string {
    const parsed = parseCliArgs(argv);
    if (parsed.ok) throw new Error(`parsed: ${JSON.stringify(argv)}`);
    return parsed.error;
}

describe("script flags", () => {
    it("--disallowed-tools splits on commas and spaces and repeats", () => {
        expect(
            args(["-p", "x", "--disallowed-tools", "Bash, Edit", "--disallowed-tools", "Read"])
                .disallowedTools
        ).toEqual(["Bash", "Edit", "Read"]);
        expect(args(["--disallowedTools", "Bash"]).disallowedTools).toEqual(["Bash"]);
    });

    it("--add-dir repeats; the prompt flags and budget keep their text", () => {
        const parsed = args([
            "--add-dir",
            "../a",
            "--add-dir=../b",
            "--system-prompt",
            "be brief",
            "--append-system-prompt",
            "in French",
            "--max-budget-usd",
            "0.25",
        ]);
        expect(parsed.addDirs).toEqual(["../a", "../b"]);
        expect(parsed.systemPrompt).toBe("be brief");
        expect(parsed.appendSystemPrompt).toBe("in French");
        expect(parsed.maxBudgetUsd).toBe("0.25");
    });

    it("north completion SHELL", () => {
        expect(args(["completion", "zsh"])).toMatchObject({ command: "completion", prompt: "zsh" });
    });
});

describe("misuse, in North's words", () => {
    it("unknown long options get the closest known one", () => {
        expect(error(["--allow-edit"])).toBe(
            "unknown option --allow-edit (did you mean --allow-edits?)"
        );
        expect(error(["--max-budget", "1"])).toBe(
            "unknown option --max-budget (did you mean --max-budget-usd?)"
        );
        expect(error(["-x"])).toBe("unknown option -x (see north --help)");
    });

    it("values: missing, swallowed flags, and booleans given one", () => {
        expect(error(["-m"])).toBe("-m needs a value");
        expect(error(["--model", "--print"])).toContain("--model needs a value (got --print;");
        expect(args(["--model=--odd"]).model).toBe("--odd");
        expect(error(["--trust=yes"])).toBe("--trust takes no value");
    });

    it("a lone word close to a subcommand is a typo; other words are prompts", () => {
        expect(error(["doctr"])).toContain("did you mean north doctor?");
        expect(error(["modles"])).toContain("did you mean north models?");
        expect(args(["test"]).prompt).toBe("test");
        expect(args(["--", "modles"]).prompt).toBe("modles");
        expect(args(["-p", "modles"]).prompt).toBe("modles");
        expect(args(["fix", "modles"]).prompt).toBe("fix modles");
    });
});

describe("help", () => {
    it("lists every new flag and the completion subcommand", () => {
        for (const flag of [
            "--system-prompt",
            "--append-system-prompt",
            "--add-dir",
            "--disallowed-tools",
            "--max-budget-usd",
            "north completion",
            "143",
        ]) {
            expect(HELP_TEXT).toContain(flag);
        }
    });
});
