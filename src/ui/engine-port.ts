/**
 * What the TUI's slash commands need from the engine, as one narrow port:
 * the CLI implements it around the session handle (model switch, summary,
 * conversations, export, learning, costs); tests fake it.
 */
import type { CommandResult, PickerOption, RewindPoints, RewindRequest } from "../commands/index";
import type { CustomCommand } from "../project/custom-commands";
import type { StoredHistory } from "./transcript/history";
import type { TranscriptAction } from "./transcript/reducer";
import type { SessionPort } from "./deferred-session";
import type { CostRow } from "./reviews/costs-dialog";

/** The two figures of the status line. */
export interface StatusCosts {
    /** This process; null once a model without a price answered. */
    sessionUsd: number | null;
    allTimeUsd: number | null;
}

/** The `/costs` dialog's figures. */
export interface CostFigures extends StatusCosts {
    session: CostRow[];
    allTime: CostRow[];
}

export interface ForkResult extends CommandResult {
    /** The text of the prompt the fork stops before, to edit and send again. */
    promptText?: string;
}

export interface TuiEngine {
    /** The conversation now; `newConversation` and `resume` replace it. */
    session(): SessionPort;
    conversationId(): string;
    /** Labels of the rules and context files loaded at start. */
    contextFiles: string[];
    /** The project's and the user's custom commands. */
    customCommands: CustomCommand[];
    /** Resolves the alias, checks the key, switches and saves the choice; nothing changes on error. */
    switchModel(name: string): Promise<CommandResult>;
    summarize(keepLast: number | undefined, signal: AbortSignal): Promise<CommandResult>;
    /** Ends this conversation's log and starts an empty conversation (same tools and shell). */
    newConversation(): Promise<CommandResult>;
    /** Saved conversations of this project, newest first, the current one left out. */
    listConversations(): Promise<PickerOption[]>;
    resume(id: string): Promise<CommandResult>;
    /** What the current conversation showed so far, to draw it again (start-up, a switch). */
    history(): StoredHistory;
    /** Saves one of the chat's own transcript actions (a prompt, a review, a command) with the conversation. */
    recordView(action: TranscriptAction): void;
    exportMarkdown(path: string | undefined): Promise<CommandResult>;
    /** The conversation's prompts, oldest first, with what restoring the code to before each would do. */
    rewindPoints(): Promise<RewindPoints>;
    /**
     * Restores the code (the point's plan, re-checked file by file) and/or the
     * conversation (the session is replaced, as by `resume`).
     */
    rewind(request: RewindRequest): Promise<CommandResult>;
    /** Continues in a copy of the conversation (up to just before prompt `promptNumber`); `promptText` is that prompt's. */
    fork(promptNumber?: number): Promise<ForkResult>;
    mcpServers(): Array<{ name: string; state: string; error?: string; tools: string[] }>;
    skills(): Array<{ name: string; description: string }>;
    /** Runs project learning with read-only tools, saves the profile and uses it from now on. */
    learn(
        signal: AbortSignal,
        onProgress: (percent: number, topic: string) => void
    ): Promise<CommandResult>;
    costs(): CostFigures;
    statusCosts(): StatusCosts;
}
