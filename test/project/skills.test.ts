import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../src/project/skills/frontmatter";
import {
    createSkillTool,
    discoverSkills,
    loadSkillBody,
    MAX_SKILL_TOOL_DESCRIPTION_CHARS,
    type Skill,
} from "../../src/project/skills";
import { createToolRegistry } from "../../src/tools/registry";

const dirs: string[] = [];
afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
    const dir = await fs.mkdtemp(path.join(tmpdir(), "north-skills-"));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) {
        await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
        await fs.writeFile(path.join(dir, name), content);
    }
    return dir;
}

const signal = new AbortController().signal;

describe("parseFrontmatter", () => {
    it("reads scalars, quotes, block scalars and lists", () => {
        const parsed = parseFrontmatter(
            [
                "---",
                "name: pdf-tools",
                'description: "Fill PDF forms: extract, fill, flatten"',
                "when: 'it''s needed' # comment",
                "long: >",
                "  folded line one",
                "  and two",
                "keep: |",
                "  a",
                "  b",
                "allowed-tools: [Read, Bash]",
                "tags:",
                "  - x",
                "  - 'y z'",
                "---",
                "",
                "# Body",
            ].join("\n")
        );
        expect(parsed.problem).toBeUndefined();
        expect(parsed.data).toEqual({
            name: "pdf-tools",
            description: "Fill PDF forms: extract, fill, flatten",
            when: "it's needed",
            long: "folded line one and two",
            keep: "a\nb",
            "allowed-tools": ["Read", "Bash"],
            tags: ["x", "y z"],
        });
        expect(parsed.body).toBe("# Body");
    });

    it("reports unclosed or unreadable frontmatter and keeps what it can", () => {
        const unclosed = parseFrontmatter("---\nname: x\n\nBody");
        expect(unclosed).toMatchObject({ data: { name: "x" }, body: "Body" });
        expect(unclosed.problem).toContain('no closing "---"');
        const partial = parseFrontmatter("---\nname: ok\n: broken\n---\nbody");
        expect(partial.data).toEqual({ name: "ok" });
        expect(partial.problem).toContain("line 3");
        expect(parseFrontmatter("no frontmatter").body).toBe("no frontmatter");
    });

    it("passes over a nested map (Agent Skills' metadata:) without a problem, keeping the keys after it", () => {
        const parsed = parseFrontmatter(
            '---\nname: render-cli\nmetadata:\n  author: Render\n  version: "1.0.0"\n\n  category: ops\ndescription: Deploys\n---\nBody'
        );
        expect(parsed.problem).toBeUndefined();
        expect(parsed.data).toEqual({ name: "render-cli", metadata: "", description: "Deploys" });
        // A stray indented line with no key before it is still reported.
        expect(parseFrontmatter("---\nname: x\n  stray: y\n---\n").problem).toContain("line 3");
    });
});

describe("discoverSkills", () => {
    it("lists skills sorted, project first on clashes, tolerating broken frontmatter", async () => {
        const project = await tree({
            "pdf/SKILL.md": "---\nname: pdf\ndescription: Work with PDF files\n---\nUse pdftk.",
            "broken/SKILL.md": "---\ndescription: never closed\n\nBody text",
            "plain/SKILL.md": "# Plain skill\n\nNo frontmatter here.",
            "not-a-skill/README.md": "nothing",
            "loose-file.md": "ignored",
        });
        const user = await tree({
            "pdf/SKILL.md": "---\nname: pdf\ndescription: User PDF\n---\n",
            "zeta/SKILL.md": "---\nname: zeta\ndescription: Last one\n---\n",
        });
        const { skills, warnings } = await discoverSkills([
            path.join(project),
            path.join(project, "missing"),
            user,
        ]);
        expect(skills.map((s) => [s.name, s.description])).toEqual([
            ["broken", "never closed"],
            ["pdf", "Work with PDF files"],
            ["plain", "Plain skill"],
            ["zeta", "Last one"],
        ]);
        expect(skills.find((s) => s.name === "pdf")?.path).toBe(path.join(project, "pdf"));
        const text = warnings.join("\n");
        expect(text).toContain("broken/SKILL.md: the frontmatter has no closing");
        expect(text).toContain("plain/SKILL.md: no frontmatter");
        expect(text).toContain(`skill "pdf" in ${path.join(user, "pdf")} is shadowed`);
    });

    it("loads the body only on use, capped at 64 KB", async () => {
        const root = await tree({
            "big/SKILL.md": `---\nname: big\ndescription: d\n---\n${"y".repeat(70 * 1024)}`,
            "small/SKILL.md": "---\nname: small\ndescription: d\n---\n\nStep 1.\n",
        });
        const { skills } = await discoverSkills([root]);
        const [big, small] = skills as [Skill, Skill];
        expect(await loadSkillBody(small)).toEqual({ body: "Step 1.", truncated: false });
        const loaded = await loadSkillBody(big);
        expect(loaded.truncated).toBe(true);
        expect(loaded.body.length).toBeLessThan(64 * 1024 + 300);
        expect(loaded.body).toContain("longer than 64 KB");
    });
});

describe("createSkillTool", () => {
    function skill(name: string, description: string, modelInvocable = true): Skill {
        return {
            name,
            description,
            path: `/s/${name}`,
            file: `/s/${name}/SKILL.md`,
            root: "/s",
            modelInvocable,
        };
    }

    it("returns the body and folder, and lists names on an unknown name", async () => {
        const root = await tree({
            "deploy/SKILL.md": "---\nname: deploy\ndescription: Ship it\n---\nRun ./ship.sh",
        });
        const { skills } = await discoverSkills([root]);
        const tool = createSkillTool(skills);
        expect(tool.description).toContain("- deploy: Ship it");
        expect(await tool.execute({ name: "deploy" }, { signal })).toEqual({
            ok: true,
            data: {
                name: "deploy",
                path: path.join(root, "deploy"),
                body: "Run ./ship.sh",
                truncated: false,
            },
        });
        const missing = await tool.execute({ name: "nope" }, { signal });
        expect(missing).toEqual({
            ok: false,
            error: {
                code: "not_found",
                message: 'No skill named "nope". Available skills: deploy.',
            },
        });
    });

    it("keeps the description short with many skills and hides user-only skills", () => {
        const many = Array.from({ length: 200 }, (_, i) => skill(`skill-${i}`, "d".repeat(300)));
        const tool = createSkillTool([...many, skill("private", "user only", false)]);
        expect(tool.description.length).toBeLessThanOrEqual(MAX_SKILL_TOOL_DESCRIPTION_CHARS);
        expect(tool.description).toMatch(/- and \d+ more \(an unknown name lists them all\)$/);
        expect(tool.description).not.toContain("private");
    });

    it("fits the tool registry contract", async () => {
        const registry = createToolRegistry([createSkillTool([skill("a", "b")])]);
        const [schema] = registry.schemas();
        expect(schema?.name).toBe("skill");
        expect(schema?.inputSchema).toMatchObject({ required: ["name"] });
        const result = await registry.execute("skill", {}, { repoRoot: "/", signal });
        expect(!result.ok && result.error.code).toBe("invalid_args");
    });
});
