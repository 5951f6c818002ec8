import type { Mode } from "../agent/events";
import type { ModelInfo } from "../providers/catalogue";

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
    pick(title: string, options: PickerOption[]): Promise<string | null>;
    setMode(mode: Mode): void;
    summarize(keepLast?: number): Promise<CommandResult>;
    showCosts(): Promise<CommandResult>;
    learn(): Promise<CommandResult>;
    listConversations(): Promise<PickerOption[]>;
    resume(id: string): Promise<CommandResult>;
    exportMarkdown(path?: string): Promise<CommandResult>;
    /** MCP servers with their state and tools. */
    mcpServers(): Array<{ name: string; state: string; error?: string; tools: string[] }>;
    /** Skills the model can load. */
    skills(): Array<{ name: string; description: string }>;
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
