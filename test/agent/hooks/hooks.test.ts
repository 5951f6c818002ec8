import { promises as fs, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
    type HookEvent,
    type HookInput,
    type HookSettings,
    type RunHooksOptions,
    loadHookSettings,
    matcherMatches as matcherMatchesWith,
    parseHookSettings,
    runHooks as runHooksWith,
    toolAliasesOf,
} from "../../../src/agent/hooks";
import { createBuiltinTools } from "../../../src/tools/index";
import type { ShellService } from "../../../src/tools/shell-service";

/** Claude Code's names as a session's built-in tools declare them. */
const aliases = toolAliasesOf({
    list: () => createBuiltinTools({ expandOutput: () => undefined, shell: {} as ShellService }),
});
const matcherMatches = (matcher: string, target: string): boolean =>
    matcherMatchesWith(matcher, target, aliases);
const runHooks = <E extends HookEvent>(
    settings: HookSettings,
    event: E,
    input: HookInput<E>,
    options: RunHooksOptions
) => runHooksWith(settings, event, input, { toolAliases: aliases, ...options });

const dirs: string[] = [];
afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
    const dir = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "north-hooks-")));
    dirs.push(dir);
    return dir;
}

/** Settings with one command hook per entry for `event`. */
function settingsFor(
    event: HookEvent,
    commands: Array<string | { command: string; timeout?: number; matcher?: string }>
): HookSettings {
    const parsed = parseHookSettings(
        {
            hooks: {
                [event]: commands.map((c) =>
                    typeof c === "string"
                        ? { matcher: "", hooks: [{ type: "command", command: c }] }
                        : {
                              matcher: c.matcher ?? "",
                              hooks: [{ type: "command", command: c.command, timeout: c.timeout }],
                          }
                ),
            },
        },
        "test"
    );
    expect(parsed.warnings).toEqual([]);
    return parsed.settings;
}

const preToolUse = {
    session_id: "s1",
    tool_name: "shell_run",
    tool_input: { command: "rm -rf build" },
};

function isAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/** Command lines of this process's children and grandchildren (a hook's shell and what it runs). */
function childCommands(): string[] {
    const parents = new Map<number, number>();
    const commands = new Map<number, string>();
    for (const entry of readdirSync("/proc")) {
        const pid = Number(entry);
        if (!Number.isInteger(pid)) continue;
        try {
            const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
            parents.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
            commands.set(
                pid,
                readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim()
            );
        } catch {
            // gone meanwhile
        }
    }
    const ours = (pid: number): boolean => {
        const parent = parents.get(pid);
        return (
            parent === process.pid || (parent !== undefined && parents.get(parent) === process.pid)
        );
    };
    return [...commands].filter(([pid]) => ours(pid)).map(([, command]) => command);
}

describe("loadHookSettings", () => {
    it("merges files, skips missing ones, and warns on invalid JSON and bad entries", async () => {
        const dir = await tempDir();
        const good = path.join(dir, "good.json");
        const broken = path.join(dir, "broken.json");
        const partial = path.join(dir, "partial.json");
        await fs.writeFile(
            good,
            JSON.stringify({
                model: "ignored",
                hooks: { Stop: [{ hooks: [{ type: "command", command: "echo a" }] }] },
            })
        );
        await fs.writeFile(broken, '{"hooks": {"Stop": [}');
        await fs.writeFile(
            partial,
            JSON.stringify({
                hooks: {
                    Stop: [{ matcher: "", hooks: [{ type: "command", command: "echo b" }] }],
                    SubagentStop: [],
                    PreToolUse: [
                        { matcher: "(", hooks: [{ type: "command", command: "x" }] },
                        { matcher: "Bash", hooks: [{ type: "prompt", prompt: "?" }] },
                        { matcher: "Bash", hooks: [{ type: "command", command: "echo ok" }] },
                    ],
                },
            })
        );
        const { settings, warnings } = await loadHookSettings([
            good,
            path.join(dir, "missing.json"),
            broken,
            partial,
        ]);
        expect(settings.Stop?.map((g) => g.hooks[0]?.command)).toEqual(["echo a", "echo b"]);
        expect(settings.PreToolUse).toHaveLength(1);
        const text = warnings.join("\n");
        expect(warnings).toHaveLength(4);
        expect(text).toContain(`${broken}: invalid JSON`);
        expect(text).toContain('hook event "SubagentStop" is not supported');
        expect(text).toContain("invalid matcher regex");
        expect(text).toContain('hook type "prompt" is not supported');
    });

    it("honours disableAllHooks", async () => {
        const dir = await tempDir();
        const a = path.join(dir, "a.json");
        await fs.writeFile(
            a,
            JSON.stringify({
                disableAllHooks: true,
                hooks: { Stop: [{ hooks: [{ type: "command", command: "echo" }] }] },
            })
        );
        expect((await loadHookSettings([a])).settings).toEqual({});
    });
});

describe("matchers", () => {
    it("match names, Claude Code aliases and anchored regexes", () => {
        expect(matcherMatches("", "anything")).toBe(true);
        expect(matcherMatches("*", "anything")).toBe(true);
        expect(matcherMatches("Bash", "shell_run")).toBe(true);
        expect(matcherMatches("Edit|Write", "edit_replace_exact")).toBe(true);
        expect(matcherMatches("Edit|Write", "edit_create_file")).toBe(true);
        expect(matcherMatches("Edit|Write", "read_file")).toBe(false);
        expect(matcherMatches("read_file", "read_file")).toBe(true);
        expect(matcherMatches("mcp__github__.*", "mcp__github__create_issue")).toBe(true);
        expect(matcherMatches("mcp__github__.*", "mcp__gitlab__x")).toBe(false);
        expect(matcherMatches("Read", "read_around")).toBe(true);
        expect(matcherMatches("Rea", "read_file")).toBe(false);
    });
});

describe("runHooks", () => {
    it("does nothing without matching hooks", async () => {
        const settings = settingsFor("PreToolUse", [{ command: "exit 2", matcher: "Read" }]);
        const outcome = await runHooks(settings, "PreToolUse", preToolUse, { cwd: process.cwd() });
        expect(outcome.runs).toEqual([]);
        expect(outcome.block).toBeUndefined();
    });

    it("passes the event JSON on stdin and the project dir in the environment", async () => {
        const dir = await tempDir();
        const out = path.join(dir, "stdin.json");
        const settings = settingsFor("PreToolUse", [
            `cat > ${out}; echo "$CLAUDE_PROJECT_DIR" > ${out}.env`,
        ]);
        const outcome = await runHooks(settings, "PreToolUse", preToolUse, { cwd: dir });
        expect(outcome.runs[0]?.exitCode).toBe(0);
        expect(JSON.parse(await fs.readFile(out, "utf8"))).toEqual({
            session_id: "s1",
            transcript_path: "",
            cwd: dir,
            hook_event_name: "PreToolUse",
            tool_name: "shell_run",
            tool_input: { command: "rm -rf build" },
        });
        expect((await fs.readFile(`${out}.env`, "utf8")).trim()).toBe(dir);
    });

    it("keeps provider keys and the hidden names out of the hook's environment", async () => {
        const dir = await tempDir();
        const out = path.join(dir, "env.txt");
        const settings = settingsFor("PreToolUse", [`env > ${out}`]);
        const env = {
            PATH: process.env.PATH,
            ANTHROPIC_API_KEY: "sk-ant-hidden",
            OPENAI_API_KEY: "sk-oai-hidden",
            GATEWAY_KEY: "gw-hidden",
            VISIBLE: "yes",
        };
        await runHooks(settings, "PreToolUse", preToolUse, { cwd: dir, env });
        const byDefault = await fs.readFile(out, "utf8");
        expect(byDefault).not.toMatch(/sk-ant-hidden|sk-oai-hidden/);
        expect(byDefault).toContain("GATEWAY_KEY=gw-hidden\n");
        expect(byDefault).toContain(`CLAUDE_PROJECT_DIR=${dir}\n`);
        await runHooks(settings, "PreToolUse", preToolUse, {
            cwd: dir,
            env,
            hiddenEnv: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GATEWAY_KEY"],
        });
        const configured = await fs.readFile(out, "utf8");
        expect(configured).not.toMatch(/hidden/);
        expect(configured).toContain("VISIBLE=yes\n");
    });

    it("exit 2 blocks with stderr as the reason", async () => {
        const settings = settingsFor("PreToolUse", [
            { command: "echo 'rm is not allowed here' >&2; exit 2", matcher: "Bash" },
        ]);
        const outcome = await runHooks(settings, "PreToolUse", preToolUse, { cwd: process.cwd() });
        expect(outcome.block).toEqual({ reason: "rm is not allowed here" });
        expect(outcome.warnings).toEqual([]);
    });

    it("other exit codes are non-blocking warnings", async () => {
        const settings = settingsFor("PreToolUse", ["echo oops >&2; exit 1"]);
        const outcome = await runHooks(settings, "PreToolUse", preToolUse, { cwd: process.cwd() });
        expect(outcome.block).toBeUndefined();
        expect(outcome.warnings).toEqual(['hook "echo oops >&2; exit 1" exited with code 1: oops']);
    });

    it("honours JSON decisions, permission decisions and continue: false", async () => {
        const json = (value: unknown): string => `echo '${JSON.stringify(value)}'`;
        const deny = settingsFor("PreToolUse", [
            json({
                hookSpecificOutput: {
                    hookEventName: "PreToolUse",
                    permissionDecision: "deny",
                    permissionDecisionReason: "protected path",
                },
            }),
        ]);
        const cwd = process.cwd();
        expect((await runHooks(deny, "PreToolUse", preToolUse, { cwd })).block).toEqual({
            reason: "protected path",
        });

        const askAndAllow = settingsFor("PreToolUse", [
            json({ hookSpecificOutput: { permissionDecision: "allow" } }),
            json({
                hookSpecificOutput: {
                    permissionDecision: "ask",
                    permissionDecisionReason: "check",
                },
            }),
            json({ decision: "approve", reason: "legacy" }),
        ]);
        const asked = await runHooks(askAndAllow, "PreToolUse", preToolUse, { cwd });
        expect(asked.permission).toEqual({ decision: "ask", reason: "check" });

        const blockPost = settingsFor("PostToolUse", [
            json({ decision: "block", reason: "lint failed: fix a.ts", systemMessage: "linted" }),
        ]);
        const post = await runHooks(
            blockPost,
            "PostToolUse",
            { ...preToolUse, tool_response: { ok: true } },
            { cwd }
        );
        expect(post.block).toEqual({ reason: "lint failed: fix a.ts" });
        expect(post.systemMessages).toEqual(["linted"]);

        const stop = settingsFor("Stop", [json({ continue: false, stopReason: "budget reached" })]);
        const stopped = await runHooks(
            stop,
            "Stop",
            { session_id: "s", stop_hook_active: false },
            { cwd }
        );
        expect(stopped.stop).toEqual({ reason: "budget reached" });
    });

    it("adds context from JSON and from plain stdout on UserPromptSubmit and SessionStart", async () => {
        const cwd = process.cwd();
        const prompt = settingsFor("UserPromptSubmit", [
            "echo 'Current branch: main'",
            `echo '${JSON.stringify({ hookSpecificOutput: { additionalContext: "Ticket: NOR-1" } })}'`,
        ]);
        const outcome = await runHooks(
            prompt,
            "UserPromptSubmit",
            { session_id: "s", prompt: "hi" },
            { cwd }
        );
        expect(outcome.additionalContext.sort()).toEqual(["Current branch: main", "Ticket: NOR-1"]);

        const start = settingsFor("SessionStart", [
            { command: "echo 'welcome'", matcher: "startup" },
        ]);
        const started = await runHooks(
            start,
            "SessionStart",
            { session_id: "s", source: "startup" },
            { cwd }
        );
        expect(started.additionalContext).toEqual(["welcome"]);
        const resumed = await runHooks(
            start,
            "SessionStart",
            { session_id: "s", source: "resume" },
            { cwd }
        );
        expect(resumed.runs).toEqual([]);

        const post = settingsFor("PostToolUse", ["echo 'plain text is not context here'"]);
        const postOutcome = await runHooks(
            post,
            "PostToolUse",
            { ...preToolUse, tool_response: {} },
            { cwd }
        );
        expect(postOutcome.additionalContext).toEqual([]);
    });

    it("warns about invalid JSON output and ignores it", async () => {
        const settings = settingsFor("UserPromptSubmit", ['echo \'{"decision": "block",\'']);
        const outcome = await runHooks(
            settings,
            "UserPromptSubmit",
            { session_id: "s", prompt: "x" },
            { cwd: process.cwd() }
        );
        expect(outcome.block).toBeUndefined();
        expect(outcome.additionalContext).toEqual([]);
        expect(outcome.warnings[0]).toMatch(/printed invalid JSON .*; its output was ignored/);
    });

    it("exit 2 on an event that cannot block becomes a message for the user", async () => {
        const settings = settingsFor("Notification", ["echo 'no desktop' >&2; exit 2"]);
        const outcome = await runHooks(
            settings,
            "Notification",
            { session_id: "s", message: "hi" },
            { cwd: process.cwd() }
        );
        expect(outcome.block).toBeUndefined();
        expect(outcome.systemMessages).toEqual(["no desktop"]);
    });

    it("times out, kills the whole process group, and does not block", async () => {
        const dir = await tempDir();
        const pidFile = path.join(dir, "pid");
        const settings = settingsFor("PreToolUse", [
            { command: `sleep 300 & echo $! > ${pidFile}; wait`, timeout: 0.5 },
        ]);
        // Not killed, the hook would hold the run for 300 s (past the test's limit).
        const outcome = await runHooks(settings, "PreToolUse", preToolUse, { cwd: dir });
        expect(outcome.block).toBeUndefined();
        expect(outcome.runs[0]?.timedOut).toBe(true);
        expect(outcome.warnings[0]).toMatch(/timed out after 0\.\d s and was killed/);
        const pid = Number(await fs.readFile(pidFile, "utf8"));
        await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 15_000, interval: 50 });
    });

    it("runs hooks in parallel, deduplicates identical commands, and stops on abort", async () => {
        const cwd = await tempDir();
        // Each hook marks that it started, then waits for the other two: run one after another,
        // the first would wait past the test's limit.
        const meetOthers = (me: string, others: string[]) =>
            `touch ${me}; for i in $(seq 600); do ${others.map((o) => `[ -e ${o} ]`).join(" && ")} && exit 0; sleep 0.05; done; exit 1`;
        const settings = settingsFor("Stop", [
            meetOthers("a", ["b", "c"]),
            meetOthers("b", ["a", "c"]),
            meetOthers("c", ["a", "b"]),
            meetOthers("a", ["b", "c"]),
        ]);
        const outcome = await runHooks(
            settings,
            "Stop",
            { session_id: "s", stop_hook_active: false },
            { cwd }
        );
        // The repeated command ran once.
        expect(outcome.runs).toHaveLength(3);
        expect(outcome.runs.map((run) => run.exitCode)).toEqual([0, 0, 0]);

        const controller = new AbortController();
        const slow = settingsFor("Stop", ["sleep 30"]);
        const pending = runHooks(
            slow,
            "Stop",
            { session_id: "s", stop_hook_active: false },
            {
                cwd,
                signal: controller.signal,
            }
        );
        // Cancelled once the hook's command runs, however slow the machine.
        await vi.waitFor(() => expect(childCommands()).toContain("sleep 30"), {
            timeout: 10_000,
            interval: 20,
        });
        controller.abort();
        const aborted = await pending;
        expect(aborted.warnings).toEqual(['hook "sleep 30" was cancelled']);
    });
});
