import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverAgentDefinitions } from "../../src/project/agent-definitions";

let dir: string;
beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "north-agents-"));
    for (const sub of ["project", "claude", "user"]) mkdirSync(join(dir, sub));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const roots = () => [
    { dir: join(dir, "project"), scope: "project" as const },
    { dir: join(dir, "claude"), scope: "project" as const },
    { dir: join(dir, "user"), scope: "user" as const },
];

describe("agent definitions", () => {
    it("reads comma and YAML tool lists, the model and the body; inherit means the parent's", async () => {
        writeFileSync(
            join(dir, "project", "reviewer.md"),
            "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: haiku\n---\nReview carefully.\n"
        );
        writeFileSync(
            join(dir, "claude", "fixer.md"),
            "---\nname: fixer\ndescription: Fixes\ntools:\n  - Read\n  - Edit\nmodel: inherit\n---\nFix it.\n"
        );
        const found = await discoverAgentDefinitions(roots(), true);
        expect(found.warnings).toEqual([]);
        expect(found.agents).toEqual([
            expect.objectContaining({
                name: "reviewer",
                tools: ["Read", "Grep"],
                model: "haiku",
                prompt: "Review carefully.",
            }),
            expect.objectContaining({ name: "fixer", tools: ["Read", "Edit"], model: undefined }),
        ]);
    });

    it("skips project folders when untrusted, keeps the user's, and reports a shadowed name", async () => {
        writeFileSync(join(dir, "project", "a.md"), "---\nname: helper\ndescription: p\n---\n");
        writeFileSync(join(dir, "user", "b.md"), "---\nname: helper\ndescription: u\n---\n");
        const untrusted = await discoverAgentDefinitions(roots(), false);
        expect(untrusted.agents.map((a) => a.description)).toEqual(["u"]);
        const trusted = await discoverAgentDefinitions(roots(), true);
        expect(trusted.agents.map((a) => a.description)).toEqual(["p"]);
        expect(trusted.warnings.join("\n")).toContain('agent "helper"');
    });

    it("falls back to the file name for an invalid name, and no tools means the default set", async () => {
        writeFileSync(join(dir, "user", "Scout.md"), "---\nname: Not Valid!\n---\nLook around.\n");
        const found = await discoverAgentDefinitions(roots(), true);
        expect(found.agents).toEqual([
            expect.objectContaining({
                name: "scout",
                tools: undefined,
                description: "Look around.",
            }),
        ]);
        expect(found.warnings.join("\n")).toContain("invalid agent name");
    });
});
