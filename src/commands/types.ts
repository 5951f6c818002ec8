import type { Mode } from "../agent/events";
import type { ModelInfo } from "../providers/catalogue";
import type { PlanResult } from "../storage/checkpoints";

export interface ParsedArgs {
    positional: string[];
    flags: Record<string, string | true>;
}

export interface FlagSpec {
    short?: string;
    /** The flag reads the next token as its value (`--keep-last 10`). */
    takesValue: boolean;
}

export interface CommandResult {
    message: string;
    isError?: boolean;
}

export interface PickerOption {
    id: string;
    label: string;
    hint?: string;
}

/** What `/rewind` takes back: the files North changed, the conversation, or both. */
export type RewindScope = "both" | "code" | "conversation";

/** A user prompt of the conversation, as a point to rewind to. */
export interface RewindPoint {
    /** 1 for the oldest prompt, as `north rewind` numbers them. */
    number: number;
    entryId: string;
    text: string;
    /** What restoring the code to before this prompt would do, or why it cannot be restored. */
    code: PlanResult;
    /** One line per file the restore would change ("a.ts", "b.ts (deleted) [changed since]"). */
    files: string[];
    /** Files changed by something other than North since North changed them. */
    changedSince: string[];
}

export type RewindPoints =
    | {
          ok: true;
          /** Oldest first. */
          points: RewindPoint[];
          /** Said wherever rewinding the code is offered. */
          notTracked: string;
      }
    | { ok: false; error: string };

export interface RewindRequest {
    point: RewindPoint;
    scope: RewindScope;
    /** Also overwrite the point's `changedSince` files (the user confirmed it). */
    overwriteChanged: boolean;
}

/** What a command may ask of the front-end and engine. Front-ends implement it. */
export interface CommandContext {
    /** False in print mode: no pickers, no dialogs. */
    interactive: boolean;
    listCommands(): CommandDefinition[];
    exit(): void;
    newConversation(): Promise<void>;
    currentModel(): ModelInfo;
    models(): ModelInfo[];
    /** Resolves, checks the key, switches and saves the choice; nothing changes on error. */
    switchModel(name: string): Promise<CommandResult>;
    /** Resolves with the chosen option's id, null when cancelled; `note` is shown under the title. */
    pick(title: string, options: PickerOption[], note?: string): Promise<string | null>;
    setMode(mode: Mode): void;
    summarize(keepLast?: number): Promise<CommandResult>;
    showCosts(): Promise<CommandResult>;
    /** Starts project learning (in the background in the chat); `stop` cancels a running one. */
    learn(action?: "start" | "stop"): Promise<CommandResult>;
    listConversations(): Promise<PickerOption[]>;
    resume(id: string): Promise<CommandResult>;
    exportMarkdown(path?: string): Promise<CommandResult>;
    /** The conversation's prompts and what rewinding to before each would restore. */
    rewindPoints(): Promise<RewindPoints>;
    /** Takes the code and/or the conversation back to before a prompt. */
    rewind(request: RewindRequest): Promise<CommandResult>;
    /** Continues in a copy of the conversation, up to just before prompt `promptNumber` when given. */
    fork(promptNumber?: number): Promise<CommandResult>;
    /** MCP servers with their state and tools. */
    mcpServers(): Array<{ name: string; state: string; error?: string; tools: string[] }>;
    /** Skills the model can load. */
    skills(): Array<{ name: string; description: string }>;
    /** The permission rules and standing approvals in force and where each comes from. */
    permissions(): PermissionListing;
    /** Removes entry `number` of `permissions()` from its file and from this session at once. */
    removePermission(number: number): CommandResult;
    /** The memory directories and what is loaded from them. */
    memory(): Promise<MemoryListing>;
    /** Appends a note to the user's or the project's memory; the next request sends it. */
    remember(note: string, scope: "user" | "project"): Promise<CommandResult>;
    /** Opens the scope's `MEMORY.md` in the user's editor (chat only), then reloads memory. */
    editMemory(scope: "user" | "project"): Promise<CommandResult>;
}

/** The memory directories and the files loaded from them, for `/memory`. */
export interface MemoryListing {
    dirs: Array<{ scope: "user" | "project"; dir: string; label: string }>;
    files: Array<{
        scope: "user" | "project";
        path: string;
        label: string;
        bytes: number;
        /** Less than `bytes` when the memory cap cut the file; 0 when it was not loaded. */
        loadedBytes: number;
    }>;
    warnings: string[];
}

/** A permission rule or standing approval, as `/permissions` lists it. */
export interface PermissionEntry {
    kind: "allow" | "deny" | "ask";
    /** As written: `Bash(npm test:*)`; `every command` / `every edit` for an auto-approval. */
    text: string;
    /** A settings file's path, a flag, or "this session". */
    source: string;
    /** False for an entry that does not count now (its project is no longer trusted). */
    inForce: boolean;
    /** "exact" (an exact command), the key of an auto-approval, or why the rule matches nothing. */
    note?: string;
    /** Why `/permissions` does not remove it (edit the file instead); absent: it can. */
    fixed?: string;
}

/** The permission rules and standing approvals of a session, for `/permissions`. */
export interface PermissionListing {
    /** Deny, then ask, then allow (the order they apply in); numbered from 1 as listed. */
    rules: PermissionEntry[];
    /** Why some entries do not count (an untrusted project's allow rules). */
    notes: string[];
    /** The chat's mode, when it grants something (`accept-edits`). */
    mode?: Mode;
}

export interface CommandDefinition {
    name: string;
    description: string;
    usage: string;
    /** Positional arguments the command takes at most; the rest of the input is left for the model. */
    maxPositional: number;
    flags?: Record<string, FlagSpec>;
    execute(ctx: CommandContext, args: ParsedArgs): Promise<CommandResult>;
}
