import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedHome, runNorth } from "../kit/run-north";

let home: string;
let env: NodeJS.ProcessEnv;
const scripts: Record<string, string> = {};

beforeAll(async () => {
    const isolated = isolatedHome();
    home = isolated.home;
    env = isolated.env;
    for (const shell of ["bash", "zsh", "fish"]) {
        const run = await runNorth(["completion", shell], { env });
        expect(run.code).toBe(0);
        scripts[shell] = run.stdout;
    }
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function hasShell(name: string): boolean {
    return spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
}

/** The script in a file of its own (fish -n does not read a piped script). */
function scriptFile(shell: string): string {
    const file = join(home, `north.${shell}`);
    writeFileSync(file, scripts[shell]!);
    return file;
}

/** CI installs zsh and fish (.ci/run), so there a missing shell fails instead of skipping. */
const checkable = (shell: string): boolean => process.env.CI === "true" || hasShell(shell);

/** What bash completes for `words` (the last one is being typed), with the script sourced. */
function bashComplete(words: string[]): string[] {
    const dir = mkdtempSync(join(tmpdir(), "north-completion-"));
    try {
        const file = join(dir, "north.bash");
        writeFileSync(file, scripts.bash!);
        const quoted = words.map((w) => `'${w}'`).join(" ");
        const out = execFileSync(
            "bash",
            [
                "-c",
                `source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _north; printf '%s\\n' "\${COMPREPLY[@]}"`,
                "_",
                file,
            ],
            { encoding: "utf8", cwd: dir }
        );
        return out.split("\n").filter((l) => l.length > 0);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

describe("north completion bash", () => {
    it("registers a completion function for north", () => {
        const dir = mkdtempSync(join(tmpdir(), "north-completion-"));
        writeFileSync(join(dir, "north.bash"), scripts.bash!);
        const out = execFileSync("bash", ["-c", `source north.bash; complete -p north`], {
            cwd: dir,
            encoding: "utf8",
        });
        rmSync(dir, { recursive: true, force: true });
        expect(out.trim()).toBe("complete -F _north north");
    });

    it("completes flags, subcommands and fixed values", () => {
        expect(bashComplete(["north", "--allow-e"])).toEqual(["--allow-edits"]);
        expect(bashComplete(["north", "--max-b"])).toEqual(["--max-budget-usd"]);
        expect(bashComplete(["north", "mo"])).toEqual(["models"]);
        expect(bashComplete(["north", "completion", ""])).toEqual(["bash", "zsh", "fish"]);
        expect(bashComplete(["north", "--mode", ""])).toEqual([
            "ask",
            "agent",
            "accept-edits",
            "plan",
        ]);
        expect(bashComplete(["north", "-p", "x", "--output-format", "s"])).toEqual(["stream-json"]);
    });

    it("offers the catalogue's models, aliases and ids, for --model and -m", () => {
        const models = bashComplete(["north", "--model", ""]);
        expect(models).toContain("claude-sonnet-4-20250514");
        expect(models.some((m) => m.startsWith("gpt-"))).toBe(true);
        expect(bashComplete(["north", "-m", "claude-sonnet-4-2025"])).toEqual([
            "claude-sonnet-4-20250514",
            "claude-sonnet-4-20250514-thinking",
        ]);
    });
});

describe("north completion zsh and fish", () => {
    it.skipIf(!checkable("zsh"))("zsh: the script parses (zsh -n)", () => {
        const result = spawnSync("zsh", ["-n", scriptFile("zsh")], { encoding: "utf8" });
        expect(result.stderr).toBe("");
        expect(result.status).toBe(0);
    });

    it.skipIf(!checkable("fish"))("fish: the script parses (fish -n)", () => {
        const result = spawnSync("fish", ["-n", scriptFile("fish")], { encoding: "utf8" });
        expect(result.stderr).toBe("");
        expect(result.status).toBe(0);
    });

    it("name every option and subcommand (checked without the shells)", () => {
        expect(scripts.zsh).toMatch(/^#compdef north/);
        expect(scripts.zsh).toContain("--add-dir");
        expect(scripts.zsh).toContain("doctor");
        expect(scripts.fish).toContain("complete -c north -l disallowed-tools");
        expect(scripts.fish).toContain("-l mode -x -a 'ask agent accept-edits plan'");
    });

    it("an unknown shell is a usage error", async () => {
        const run = await runNorth(["completion", "powershell"], { env });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
            'north: completion needs a shell: bash, zsh, fish (got "powershell")\n'
        );
    });
});

if (!checkable("zsh") || !checkable("fish")) {
    console.warn(
        "completion.test.ts: zsh or fish is not installed (Debian packages zsh, fish), so their syntax checks are skipped"
    );
}
