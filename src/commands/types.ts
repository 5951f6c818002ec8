import type { EngineHostPort, HostState, OpOf, OpReply, OpType, Outcome } from "../agent/protocol";

export interface ParsedArgs {
    positional: string[];
    flags: Record<string, string | true>;
}

export interface FlagSpec {
    short?: string;
    /** The flag reads the next token as its value (`--keep-last 10`). */
    takesValue: boolean;
}

export interface PickerOption {
    id: string;
    label: string;
    hint?: string;
}

/** What a command sees when it parses: where it runs and the host's status snapshot. */
export interface CommandView {
    /** The chat (pickers, conversation switches, an editor); false in print mode. */
    chat: boolean;
    state: HostState;
    /** Every command, built-ins first (`/help`). */
    commands: CommandDefinition[];
    /** Names one command hides from another (a project's `/review` under the built-in), for `/help`. */
    collisions?: string[];
}

/**
 * What a command does, as a value: an immediate result, an op to submit
 * (then a plan made from its reply), a choice to offer first, the user's
 * editor on a file (the chat), copying an answer (the chat), or ending the app.
 */
export type CommandPlan =
    | { kind: "result"; result: Outcome }
    | {
          kind: "submit";
          op: OpOf<OpType>;
          /** Submits `op` and makes the next plan from its reply. */
          next(submit: EngineHostPort["submit"]): Promise<CommandPlan>;
      }
    | {
          kind: "choose";
          title: string;
          options: PickerOption[];
          /** Shown under the title. */
          note?: string;
          /** `choice` is the chosen option's id, null when cancelled. */
          onChoice(choice: string | null): CommandPlan;
      }
    | {
          kind: "edit";
          path: string;
          onEdited(
              edited: { ok: true; warning?: string } | { ok: false; error: string }
          ): CommandPlan;
      }
    /** Copies the `nth` last answer to the clipboard (the chat holds the answers). */
    | { kind: "copy"; nth: number }
    /** Turns the composer's vim keys on or off and saves it (the chat). */
    | { kind: "toggle_vim" }
    | { kind: "quit"; result: Outcome };

export interface CommandDefinition {
    name: string;
    /** Other names that run it (`/clear` for `/new`: the habits of other agents). */
    aliases?: readonly string[];
    description: string;
    usage: string;
    /** Positional arguments the command takes at most; the rest of the input is left for the model. */
    maxPositional: number;
    flags?: Record<string, FlagSpec>;
    /** The plugin (`name@marketplace`) a Markdown command came from; `/help` groups them. */
    plugin?: string;
    plan(args: ParsedArgs, view: CommandView): CommandPlan;
}

export function result(message: string, isError = false): CommandPlan {
    return { kind: "result", result: isError ? { message, isError } : { message } };
}

export function failure(message: string): CommandPlan {
    return result(message, true);
}

/** Shows an outcome as it is. */
export function shown(outcome: Outcome): CommandPlan {
    return { kind: "result", result: outcome };
}

export function submit<T extends OpType>(
    op: OpOf<T>,
    then: (reply: OpReply<T>) => CommandPlan
): CommandPlan {
    return { kind: "submit", op, next: async (send) => then(await send<T>(op)) };
}
