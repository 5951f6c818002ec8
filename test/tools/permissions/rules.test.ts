import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PermissionRules, lineOfRule, parseRule } from "../../../src/tools/permissions/rules";

const bases = { projectRoot: "/p", home: "/home/u" };
const known = new Set(["shell_run", "Bash", "read_file", "Read", "Edit", "edit_replace_exact"]);

function rulesOf(permissions: { allow?: unknown[]; deny?: unknown[]; ask?: unknown[] }) {
    const rules = new PermissionRules(bases, known);
    const warnings = rules.addSource({ source: "/p/.north/settings.json", permissions });
    return { rules, warnings };
}

describe("parseRule", () => {
    it("reads every documented form", () => {
        expect(parseRule("Bash(npm test:*)", bases, known)).toEqual({
            target: { type: "command", pattern: "npm test:*" },
        });
        expect(parseRule("mcp__srv__tool", bases, known)).toEqual({
            target: { type: "tool", name: "mcp__srv__tool" },
        });
        expect(parseRule("mcp__srv", bases, known)).toEqual({
            target: { type: "mcp_server", prefix: "mcp__srv__" },
        });
        expect(parseRule("mcp__srv__*", bases, known)).toEqual({
            target: { type: "mcp_server", prefix: "mcp__srv__" },
        });
        expect(parseRule("shell_run", bases, known)).toEqual({
            target: { type: "tool", name: "shell_run" },
        });
        expect(parseRule("WebFetch(domain:x.com)", bases, known)).toEqual({
            target: { type: "domain", domain: "x.com" },
        });
        expect(parseRule("WebSearch", bases, known)).toMatchObject({
            target: { type: "ignored" },
        });
    });

    it("says what is wrong with a bad rule", () => {
        const error = (raw: unknown) => (parseRule(raw, bases, known) as { error: string }).error;
        expect(error("Bash(npm test")).toMatch(/unbalanced parentheses/);
        expect(error("Bash()")).toMatch(/empty pattern/);
        expect(error(42)).toMatch(/must be a string/);
        expect(error("Frobnicate")).toMatch(/no tool is called Frobnicate/);
        expect(error("shell_run(ls)")).toMatch(/only Bash/);
        expect(error("  ")).toMatch(/empty/);
    });
});

describe("path rules follow gitignore's shapes", () => {
    const denies = (rule: string, absPath: string) =>
        rulesOf({ deny: [rule] }).rules.readDenial(absPath) !== undefined;

    it("anchors ./x, /x and a/b to the project, //x to /, ~/x to home", () => {
        expect(denies("Read(./.env)", "/p/.env")).toBe(true);
        expect(denies("Read(./.env)", "/p/sub/.env")).toBe(false);
        expect(denies("Read(/secrets/**)", "/p/secrets/a/b.txt")).toBe(true);
        expect(denies("Read(config/*.json)", "/p/config/a.json")).toBe(true);
        expect(denies("Read(config/*.json)", "/p/x/config/a.json")).toBe(false);
        expect(denies("Read(//etc/passwd)", "/etc/passwd")).toBe(true);
        expect(denies("Read(~/.ssh/**)", "/home/u/.ssh/id_rsa")).toBe(true);
        expect(denies("Read(~/.ssh/**)", "/p/.ssh/id_rsa")).toBe(false);
    });

    it("matches a bare name at any depth, and a folder covers what is inside", () => {
        expect(denies("Read(.env)", "/p/deep/er/.env")).toBe(true);
        expect(denies("Read(*.pem)", "/p/a/key.pem")).toBe(true);
        expect(denies("Read(secrets)", "/p/a/secrets/x/y")).toBe(true);
        expect(denies("Read(./src)", "/p/src/a.ts")).toBe(true);
        expect(denies("Read(./src)", "/p/srcs/a.ts")).toBe(false);
    });
});

describe("PermissionRules", () => {
    it("deny beats ask beats allow, whatever the order written", () => {
        const { rules } = rulesOf({
            allow: ["Edit(src/**)"],
            ask: ["Edit(src/a.ts)"],
            deny: ["Edit(src/a.ts)"],
        });
        expect(rules.forPath("edit", "/p/src/a.ts")?.decision).toBe("deny");
        const asked = rulesOf({ allow: ["Edit(src/**)"], ask: ["Edit(src/a.ts)"] }).rules;
        expect(asked.forPath("edit", "/p/src/a.ts")?.decision).toBe("ask");
        expect(asked.forPath("edit", "/p/src/b.ts")?.decision).toBe("allow");
        expect(asked.forPath("read", "/p/src/b.ts")).toBeUndefined();
    });

    it("matches tools by name, by Claude Code alias and by MCP server", () => {
        const { rules } = rulesOf({ deny: ["Bash", "mcp__srv"], allow: ["mcp__other__read"] });
        expect(rules.forTool("shell_run", ["Bash"])?.rule.text).toBe("Bash");
        expect(rules.forTool("mcp__srv__anything")?.decision).toBe("deny");
        expect(rules.forTool("mcp__srvx__anything")).toBeUndefined();
        expect(rules.forTool("mcp__other__read")?.decision).toBe("allow");
        expect(rules.forTool("read_file", ["Read"])).toBeUndefined();
    });

    it("keeps every good rule when one is bad, and names the bad one's line", () => {
        const text = `{\n  "permissions": {\n    "deny": [\n      "Bash(rm:*)",\n      "Bash(oops",\n      "Read(./.env)"\n    ]\n  }\n}\n`;
        const rules = new PermissionRules(bases, known);
        const warnings = rules.addSource({
            source: "/p/.north/settings.json",
            permissions: JSON.parse(text).permissions,
            text,
        });
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain("/p/.north/settings.json:5");
        expect(warnings[0]).toContain("unbalanced parentheses");
        expect(rules.commandRules().deny).toEqual(["rm:*"]);
        expect(rules.readDenial("/p/.env")).toBe("Read(./.env)");
    });

    it("skips a list that is not a list, keeping the others", () => {
        const { rules, warnings } = rulesOf({ allow: "Bash(make)", deny: ["Bash(rm:*)"] } as never);
        expect(warnings).toEqual([
            "/p/.north/settings.json: permissions.allow must be a list of rules; it is ignored",
        ]);
        expect(rules.commandRules()).toMatchObject({ allow: [], deny: ["rm:*"] });
        expect(rules.judgesCommands()).toBe(true);
        expect(rulesOf({ allow: ["Edit(src/**)", "Read(x)"] }).rules.judgesCommands()).toBe(false);
    });

    it("finds a rule's line after its list's key", () => {
        const text = `{"permissions": {"allow": ["X"],\n"deny": [\n"X"]}}`;
        expect(lineOfRule(text, "allow", "X")).toBe(1);
        expect(lineOfRule(text, "deny", "X")).toBe(3);
    });

    it("leaves out allow rules that stopped counting (trust lost)", () => {
        let trusted = true;
        const rules = new PermissionRules(bases, known);
        rules.addSource({
            source: "/p/.north/settings.json",
            permissions: { allow: ["Bash(make)"], deny: ["Bash(rm:*)"] },
            allowActive: () => trusted,
        });
        expect(rules.commandRules().allow).toEqual(["make"]);
        trusted = false;
        expect(rules.commandRules().allow).toEqual([]);
        expect(rules.commandRules().deny).toEqual(["rm:*"]);
    });
});

describe("path rules through symlinked folders", () => {
    it("match a file where a linked home or folder leads, as well as where it is named", () => {
        const dir = realpathSync(mkdtempSync(join(tmpdir(), "north-rule-links-")));
        try {
            mkdirSync(join(dir, "data", "u", "notes"), { recursive: true });
            mkdirSync(join(dir, "data", "tmp"), { recursive: true });
            symlinkSync(join(dir, "data", "u"), join(dir, "home"));
            symlinkSync(join(dir, "data", "tmp"), join(dir, "tmp"));
            const rules = new PermissionRules(
                { projectRoot: "/p", home: join(dir, "home") },
                known
            );
            rules.addSource({
                source: "config.json",
                permissions: {
                    allow: ["Edit(~/notes/**)", `Edit(/${dir}/tmp/**)`],
                    deny: [`Edit(/${dir}/tmp/secret.txt)`],
                },
            });
            const decision = (p: string) => rules.forPath("edit", p)?.decision;
            expect(decision(join(dir, "home", "notes", "a.md"))).toBe("allow");
            expect(decision(join(dir, "data", "u", "notes", "a.md"))).toBe("allow");
            expect(decision(join(dir, "data", "u", "other.md"))).toBeUndefined();
            expect(decision(join(dir, "data", "tmp", "log.txt"))).toBe("allow");
            expect(decision(join(dir, "data", "tmp", "secret.txt"))).toBe("deny");
            expect(decision(join(dir, "data", "tmpx", "log.txt"))).toBeUndefined();
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
