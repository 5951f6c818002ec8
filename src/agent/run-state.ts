import type { ImageBlock, ToolSchema, Usage } from "../providers/types";
import { EMPTY_USAGE } from "../providers/types";
import type { ContextBlocks } from "./prompt-blocks";
import { type AppliedOutputStyle, outputStyleBlock, systemWithContext } from "./prompt-blocks";
import type { EngineEvent, Mode, ToolCallRecord } from "./events";
import type { NorthFileRouter } from "./north-file-turn";
import { PROPOSE_PLAN_SCHEMA, PROPOSE_PLAN_TOOL } from "./plan";
import { buildSystemPrompt } from "./system-prompt";
import type { EditsMode } from "./approval-requirement";
import type { ToolRunner } from "./tool-executor";

export const DEFAULT_MAX_TURNS = 100;

export interface RunOptions {
    mode: Mode;
    signal?: AbortSignal;
    /** Model requests allowed in this run; the run ends with `error_max_turns` past it. */
    maxTurns?: number;
    /** Plan mode without anyone to review: end the run with the first proposed plan as its result. */
    planOnly?: boolean;
    /** Attached files (already rendered), sent ahead of the summary during this run only. */
    attachedContext?: string;
    /** Attached images, sent with the prompt (and kept in the transcript). */
    attachedImages?: ImageBlock[];
}

/** Everything one run decides up front and accumulates; it ends with the run. */
export interface RunContext {
    /** Changes only to `accept-edits`, when an edit review says so (`editsModeOf`). */
    mode: Mode;
    readonly signal: AbortSignal;
    readonly maxTurns: number;
    readonly planOnly: boolean;
    readonly system: string;
    readonly schemas: ToolSchema[];
    /** Tools the model may call in this mode (propose_plan included in plan mode). */
    readonly allowedNames: Set<string>;
    readonly attachedFiles: string | undefined;
    readonly attachedImages: ImageBlock[];
    /** Set while the run may write files through NORTH_FILE blocks (edit tools offered). */
    readonly northFile: NorthFileRouter | null;
    readonly startedAt: number;
    turns: number;
    /** The text of the last model turn that had any. */
    finalText: string;
    usage: Usage;
    /** Null once a response came from a model without a price. */
    costUsd: number | null;
    toolCalls: ToolCallRecord[];
    /** Plan mode: the plan the user accepted in this run, if any. */
    acceptedPlan: string | null;
    /**
     * Updates `schemas` and `allowedNames` in place when the tool list changed
     * during the run (an MCP server's list_changed); called before each request.
     */
    refreshTools(): void;
}

export interface RunSetup {
    tools: ToolRunner;
    repoRoot: string;
    /** Replaces North's system prompt (project learning uses its own). */
    systemPrompt?: string;
    /** Added after the system prompt, before the rules (`--append-system-prompt`). */
    appendSystemPrompt?: string;
    context: ContextBlocks;
    /** The main conversation's output style (subagents and reviewers have none). */
    outputStyle?: AppliedOutputStyle;
    /** The session's NORTH_FILE router, created on first use. */
    northFile: () => NorthFileRouter;
}

/** What every request of a run in `mode` sends besides the messages. */
export interface RequestShape {
    system: string;
    schemas: ToolSchema[];
    allowed: ReturnType<ToolRunner["list"]>;
    allowedNames: Set<string>;
}

/** The system prompt and tool schemas of a request in `mode` (also the idle context estimate's). */
export function requestShape(mode: Mode, setup: Omit<RunSetup, "northFile">): RequestShape {
    const { schemas, allowed, allowedNames } = toolShape(mode, setup.tools);
    const base =
        setup.systemPrompt ??
        buildSystemPrompt({
            repoRoot: setup.repoRoot,
            mode,
            tools: allowed,
            codingInstructions: setup.outputStyle?.keepCodingInstructions ?? true,
        });
    // Fixed for the session, so the cached prefix stays byte-identical across requests.
    const own = [base, setup.appendSystemPrompt, outputStyleBlock(setup.outputStyle)];
    const system = systemWithContext(own.filter(Boolean).join("\n\n"), setup.context);
    return { system, schemas, allowed, allowedNames };
}

function allowedTools(mode: Mode, tools: ToolRunner): ReturnType<ToolRunner["list"]> {
    return tools.list().filter((t) => mode !== "ask" || t.readOnly);
}

function toolShape(mode: Mode, tools: ToolRunner): Omit<RequestShape, "system"> {
    const allowed = allowedTools(mode, tools);
    const allowedNames = new Set(allowed.map((t) => t.name));
    const schemas = tools.schemas((t) => allowedNames.has(t.name));
    if (mode === "plan") {
        schemas.push(PROPOSE_PLAN_SCHEMA);
        allowedNames.add(PROPOSE_PLAN_TOOL);
    }
    return { schemas, allowed, allowedNames };
}

/** The tools, system prompt and empty tallies of a run in `options.mode`. */
export function createRunContext(options: RunOptions, setup: RunSetup): RunContext {
    const { system, schemas, allowed, allowedNames } = requestShape(options.mode, setup);
    const canWrite = allowed.some((t) => t.approvalPolicy === "write");
    let toolCount = allowed.length;
    return {
        mode: options.mode,
        signal: options.signal ?? new AbortController().signal,
        maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
        planOnly: options.planOnly === true,
        system,
        schemas,
        allowedNames,
        attachedFiles: options.attachedContext,
        attachedImages: options.attachedImages ?? [],
        northFile: canWrite ? setup.northFile() : null,
        startedAt: performance.now(),
        turns: 0,
        finalText: "",
        usage: { ...EMPTY_USAGE },
        costUsd: 0,
        toolCalls: [],
        acceptedPlan: null,
        refreshTools() {
            const names = allowedTools(options.mode, setup.tools).map((t) => t.name);
            if (names.every((name) => allowedNames.has(name)) && names.length === toolCount) return;
            const next = toolShape(options.mode, setup.tools);
            toolCount = names.length;
            schemas.splice(0, schemas.length, ...next.schemas);
            allowedNames.clear();
            for (const name of next.allowedNames) allowedNames.add(name);
        },
    };
}

/**
 * The run's `accept-edits` switch. An edit review's "accept edits for the rest
 * of this session" turns it on from agent (or plan, once its plan is
 * accepted) and tells the front-end, which sends its next requests in it.
 */
export function editsModeOf(run: RunContext, emit: (event: EngineEvent) => void): EditsMode {
    return {
        accepting: () => run.mode === "accept-edits",
        acceptFromNowOn() {
            if (run.mode === "accept-edits" || run.mode === "ask") return;
            run.mode = "accept-edits";
            emit({ type: "mode_change", mode: "accept-edits" });
        },
    };
}
