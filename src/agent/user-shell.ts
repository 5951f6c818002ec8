/**
 * `!command` in the chat: a shell command the user typed. It runs without a
 * review (the user typed it) but through the model's own `shell_run` and its
 * shell service, so the working directory, the environment without provider
 * keys and the sandbox are the same, and the deny rules refuse it as they
 * would the model's. Its output streams as a `shell_run` entry; what the model
 * sees next turn is a user message with the command, its output (head and
 * tail, as a `shell_run` digest keeps them) and how it ended.
 */
import { randomUUID } from "node:crypto";
import { headTail, isRecord } from "../tools/digest-text";
import { DIGEST_SHELL_HEAD_LINES, DIGEST_SHELL_TAIL_LINES } from "../tools/limits";
import { SHELL_MAX_TIMEOUT_MS, type ShellRunDetails } from "../tools/shell-run";
import type { ToolContext, ToolResult } from "../tools/types";
import { userCommandDenial } from "./approval-requirement";
import type { Outcome } from "./protocol";
import { capToolResult, type ToolTurnDeps } from "./tool-turn";

/** The tool a typed command runs through (the model's command tool). */
const SHELL_TOOL = "shell_run";

export type UserShellDeps = Pick<
    ToolTurnDeps,
    "conversation" | "tools" | "settings" | "repoRoot" | "emit" | "processes" | "logger"
>;

/** How the command ended, in words ("exit code 0", "cancelled"). */
function endingOf(result: ToolResult): string {
    if (!result.ok) return `not run: ${result.error.message}`;
    const d = result.data as Partial<ShellRunDetails>;
    if (d.backgrounded) return `moved to the background as ${d.backgrounded.id}`;
    if (d.cancelled) return "stopped by the user (Ctrl+C)";
    if (d.timedOut) return "timed out";
    return d.exitCode === null || d.exitCode === undefined
        ? `killed${d.signal ? ` by ${d.signal}` : ""}`
        : `exit code ${d.exitCode}`;
}

/** The user message the model reads: the command, its output's head and tail, how it ended. */
function messageText(command: string, result: ToolResult): string {
    const data =
        result.ok && isRecord(result.data) ? (result.data as Partial<ShellRunDetails>) : {};
    const raw = (data.output ?? "").replace(/\s+$/, "");
    const cut = headTail(raw, DIGEST_SHELL_HEAD_LINES, DIGEST_SHELL_TAIL_LINES);
    const output = cut
        ? `${cut.text}\n[${cut.omitted} lines of output omitted]`
        : raw === ""
          ? "(no output)"
          : raw;
    const where = data.cwd && data.cwd !== "." ? ` in ${data.cwd}` : "";
    return [
        `<user_shell>`,
        `I ran this command myself${where} (you did not run it):`,
        `$ ${command}`,
        output,
        `[${endingOf(result)}]${data.note ? ` ${data.note}` : ""}`,
        `</user_shell>`,
    ].join("\n");
}

/** Runs a command the user typed; the reply says why it did not run, if it did not. */
export async function runUserShell(
    command: string,
    signal: AbortSignal,
    deps: UserShellDeps
): Promise<Outcome & { exitCode?: number | null }> {
    const tool = deps.tools.list().find((t) => t.name === SHELL_TOOL);
    if (!tool) return { message: "commands cannot run in this session", isError: true };
    const rules = deps.settings.permissionRules;
    const byName = rules?.forTool(SHELL_TOOL, tool.hookAliases ?? []);
    const denial = await userCommandDenial(command, undefined, {
        settings: deps.settings,
        repoRoot: deps.repoRoot,
        byName,
    });
    if (denial !== null) {
        deps.logger.info("user_shell_denied", { rule: denial });
        return {
            message: `!${command} was not run: it is denied by the permission rule ${denial}`,
            isError: true,
        };
    }
    const id = `user-shell-${randomUUID().slice(0, 8)}`;
    const input = { command, timeoutMs: SHELL_MAX_TIMEOUT_MS };
    deps.emit({ type: "tool_call_start", id, name: SHELL_TOOL });
    deps.emit({ type: "tool_call", id, name: SHELL_TOOL, input });
    // Ctrl+B moves it to the background, as a model's command.
    const detach = deps.processes?.detachable(id);
    const ctx: ToolContext = {
        repoRoot: deps.repoRoot,
        signal,
        onOutput: (text) => deps.emit({ type: "tool_output", id, name: SHELL_TOOL, text }),
        toolCallId: id,
        detach: detach?.signal,
    };
    const started = performance.now();
    let result: ToolResult;
    try {
        result = deps.tools.executeDefinition
            ? await deps.tools.executeDefinition(tool, input, ctx)
            : await deps.tools.execute(SHELL_TOOL, input, ctx);
    } finally {
        detach?.release();
    }
    const text = capToolResult(
        messageText(command, result),
        deps.conversation.model.contextLimitTokens
    );
    deps.conversation.add({ role: "user", content: text });
    deps.emit({
        type: "tool_result",
        id,
        name: SHELL_TOOL,
        ok: result.ok,
        content: text,
        ...(result.ok ? { details: result.data } : { error: result.error }),
        durationMs: Math.round(performance.now() - started),
    });
    deps.logger.info("user_shell", { ok: result.ok });
    if (!result.ok) return { message: result.error.message, isError: true };
    const exitCode = (result.data as Partial<ShellRunDetails>).exitCode;
    return { message: endingOf(result), exitCode };
}
