import type { ApprovalPolicy, ToolDefinition } from "../tools/types";
import type { Mode } from "./events";

export interface SystemPromptInput {
    repoRoot: string;
    mode: Mode;
    /** The tools offered: guidance about editing (and NORTH_FILE) or commands is left out without them. */
    tools: ReadonlyArray<Pick<ToolDefinition, "approvalPolicy" | "hookAliases">>;
    /**
     * False under an output style without `keep-coding-instructions`: the
     * sections in `CODING_SECTIONS` are left out. Default true.
     */
    codingInstructions?: boolean;
}

type Policy = Exclude<ApprovalPolicy, "none">;
/** What the offered tools allow: changing files (NORTH_FILE too), running commands. */
type Can = Record<Policy, boolean>;

/** A section, shown only when a tool of the `needs` policy is offered. */
type Section = [tag: string, text: string | ((can: Can) => string), needs?: Policy];

const SECTIONS: Section[] = [
    [
        "communication",
        `Be concise; use Markdown; cite paths and line numbers. Never lie or guess: claim only what you read; find files and symbols before naming them. Describe actions in plain words, not tool names.`,
    ],
    [
        "tool_calling",
        (can) =>
            `Follow each schema exactly. Say in one sentence what a batch of calls is for; batch independent calls. Gather in 1-2 rounds, then ${can.write ? "edit" : "answer"}. Never re-read what you have. A truncated or digested result: narrow the call or use expand_output.`,
    ],
    [
        "planning",
        `Tasks touching 2+ files: a 2-5 bullet plan, then do it at once. Track multi-step work with todo_write.`,
        "write",
    ],
    [
        "search_and_reading",
        `Broad to narrow: list_root, find_files, search_text, then read only what you need. Files over 200 lines: get_line_count, the structure (get_file_outline, get_file_symbols; HTML/CSS: find_blocks), then read_around or read_file with a range.`,
    ],
    [
        "making_code_changes",
        `LOCATE → CONFIRM → ATOMIC WRITE → VERIFY. Read before editing. Prefer small edits (edit_replace_exact, edit_by_anchor): one per turn, or one edit_apply_batch. At most 300 lines per call; write long files as <NORTH_FILE path="rel/path">...</NORTH_FILE> in plain text, skeleton first.`,
        "write",
    ],
    [
        "verification",
        `After each edit, read the edited region; fix duplicated or broken structure at once.`,
        "write",
    ],
    [
        "mixed_files",
        `HTML with <style>/<script>: find_blocks first, then edit by coordinates; check a selector exists first.`,
        "write",
    ],
    [
        "tool_churn_limits",
        `After 2 reads and 1 failed write on a file, switch to structure first and one atomic edit.`,
        "write",
    ],
    [
        "debugging",
        `Edit only when sure of the cause. On a mismatch, re-read and retry once, then ask. At most 3 test-fix loops.`,
        "write",
    ],
    [
        "calling_external_apis",
        `Call external services or install packages only when asked.`,
        "shell",
    ],
    [
        "long_running_commands",
        `Commands get no input. Servers, watchers: shell_run with background: true, wait for the ready line (process_read), use it, then process_stop. Prompting programs: tty: true, then process_send. Password prompts: process_send with askUser: true; never guess one or ask for it in chat.`,
        "shell",
    ],
    [
        "conversation",
        (can) =>
            `${can.write || can.shell ? "The user reviews every write and command and may refuse it; a refusal is final: adapt. " : ""}Acknowledge a resumed conversation. End longer answers with "Next I would: ..." when a next step is clear.`,
    ],
];

/** North's software-engineering sections, dropped under an output style that does not keep them. */
export const CODING_SECTIONS: ReadonlySet<string> = new Set([
    "planning",
    "making_code_changes",
    "verification",
    "mixed_files",
    "tool_churn_limits",
    "debugging",
]);

const AGENT_NOTE = `Agent mode: you may change files and run commands through the tools.`;

// Accept-edits differs from agent only in who reviews edits: the same prompt keeps the cache.
const MODE_NOTES: Record<Mode, string> = {
    ask: `Ask mode: read-only tools only. Answer the question; if a change is needed, describe it.`,
    agent: AGENT_NOTE,
    "accept-edits": AGENT_NOTE,
    plan: `Plan mode: explore with the read tools, then call propose_plan with a concrete plan. Changes and commands are refused until the user accepts it; then carry it out.`,
};

/**
 * The system prompt, the same for every provider. It must stay
 * byte-identical across the requests of a conversation (prompt caching), so
 * nothing here changes per request: no clock, no counters.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
    const header = `You are North, a coding agent working in the user's repository at ${input.repoRoot} through tools. Paths are relative to that root.`;
    // Known through the definitions, so a renamed tool keeps its guidance. Commands: a tool that
    // answers to Claude Code's `Bash` (MCP tools are reviewed like commands but are not shells).
    const can: Can = {
        write: input.tools.some((tool) => tool.approvalPolicy === "write"),
        shell: input.tools.some(
            (tool) => tool.approvalPolicy === "shell" && tool.hookAliases?.includes("Bash") === true
        ),
    };
    const coding = input.codingInstructions !== false;
    const body = SECTIONS.filter(
        ([tag, , needs]) => (!needs || can[needs]) && (coding || !CODING_SECTIONS.has(tag))
    ).map(([tag, text]) => `<${tag}>\n${typeof text === "string" ? text : text(can)}\n</${tag}>`);
    return [header, ...body, `<mode>\n${MODE_NOTES[input.mode]}\n</mode>`].join("\n\n");
}
