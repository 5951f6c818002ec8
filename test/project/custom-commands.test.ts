import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
    type CustomCommand,
    discoverCustomCommands,
    expandCustomCommand,
    splitCommandArgs,
} from "../../src/project/custom-commands";

const dirs: string[] = [];
afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
    const dir = await fs.mkdtemp(path.join(tmpdir(), "north-commands-"));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) {
        await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await fs.writeFile(path.join(dir, name), content);
    }
    return dir;
}

function command(body: string): CustomCommand {
    return { name: "t", description: "", body, file: "/t.md", scope: "project" };
}

describe("discoverCustomCommands", () => {
    it("finds Markdown commands, namespaces subfolders, and orders project first", async () => {
        const north = await tree({
            "review.md":
                "---\ndescription: Review the diff\nargument-hint: [focus]\n---\nReview $ARGUMENTS",
            "frontend/component.md": "Create a component named $1",
            "notes.txt": "ignored",
            ".hidden.md": "ignored",
        });
        const claude = await tree({
            "review.md": "Claude's review",
            "zz.md": "---\ndescription: broken\nLast",
            "has space.md": "x",
        });
        const user = await tree({ "aa.md": "# User command\nDo it", "review.md": "user review" });
        const { commands, warnings } = await discoverCustomCommands([
            { dir: north, scope: "project" },
            { dir: claude, scope: "project" },
            { dir: path.join(north, "missing"), scope: "user" },
            { dir: user, scope: "user" },
        ]);
        expect(commands.map((c) => [c.name, c.scope, c.description])).toEqual([
            ["frontend:component", "project", "Create a component named $1"],
            ["review", "project", "Review the diff"],
            ["zz", "project", "broken"],
            ["aa", "user", "User command"],
        ]);
        expect(commands[1]?.argumentHint).toBe("[focus]");
        expect(commands[1]?.body).toBe("Review $ARGUMENTS");
        const text = warnings.join("\n");
        expect(text).toContain(
            `command /review in ${path.join(claude, "review.md")} is shadowed by`
        );
        expect(text).toContain(`command /review in ${path.join(user, "review.md")} is shadowed by`);
        expect(text).toContain("zz.md: the frontmatter has no closing");
        expect(text).toContain("has space.md: a command name may not contain spaces");
    });
});

describe("expandCustomCommand", () => {
    it("substitutes $ARGUMENTS and $1..$9", () => {
        const cmd = command("Fix issue #$1 with priority $2 ($ARGUMENTS); $3 missing; $10");
        expect(expandCustomCommand(cmd, ' 123 "very high" ')).toBe(
            'Fix issue #123 with priority very high (123 "very high");  missing; $10'
        );
    });

    it("appends the arguments when the template has no placeholder", () => {
        expect(expandCustomCommand(command("Run the tests.\n"), "unit only")).toBe(
            "Run the tests.\n\nARGUMENTS: unit only"
        );
        expect(expandCustomCommand(command("Run the tests."), "")).toBe("Run the tests.");
    });

    it("splits arguments with quotes", () => {
        expect(splitCommandArgs(`a "b c" 'd e' f"g h"`)).toEqual(["a", "b c", "d e", "fg h"]);
        expect(splitCommandArgs(`"unclosed rest`)).toEqual(["unclosed rest"]);
        expect(splitCommandArgs("   ")).toEqual([]);
    });
});
