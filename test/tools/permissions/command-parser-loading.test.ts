import { describe, expect, it } from "vitest";
import { isBashParserLoaded } from "../../../src/tools/permissions/bash-parser";
import { judgeCommand, validateCommandPattern } from "../../../src/tools/permissions/command-judge";

describe("loading the shell parser", () => {
    it("waits for the first judgement, then parses with the grammar", async () => {
        expect(validateCommandPattern("npm test:*")).toBeNull();
        expect(isBashParserLoaded()).toBe(false);
        const [first, second] = await Promise.all([
            judgeCommand(
                "npm test && rm x",
                { allow: ["npm test:*"], deny: ["rm:*"], ask: [] },
                () => "allow"
            ),
            judgeCommand("npm test", { allow: ["npm test:*"], deny: [], ask: [] }, () => "allow"),
        ]);
        expect(isBashParserLoaded()).toBe(true);
        expect(first).toMatchObject({ decision: "deny", rule: "Bash(rm:*)" });
        expect(second).toEqual({ decision: "allow", commands: ["npm test"] });
    });
});
